//! A lake for the lake worker to write ([`LakeJob`]): the rows a worker built of the runs it
//! holds (`engine::lake::build`), and those of two workers merged (`engine::lake::merge`).
//! Plain data, sent between workers as postcard bytes (`lake_host::WRITE`,
//! `codegen_host::LAKE_PART`), never through the page; the run store makes it, so it names no
//! worker.

/// The zip "Export the workspace as a lake" writes: the lake worker adds to it the runs of
/// dropped lakes not loaded into the workspace (every kept run).
pub const WORKSPACE_FILE: &str = "workspace.evalboard-lake.zip";

/// A lake for the lake worker to write and zip: the rows the main worker built
/// (`engine::lake::build` of its runs), its runs for the manifest, the zip's file name.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct LakeJob {
    pub req: crate::protocol::ReqId,
    /// The zip's name (`….evalboard-lake.zip`); the lake is the folder of its stem inside.
    pub file: String,
    /// Each table's rows, by the table's name.
    pub tables: Vec<(String, Vec<Vec<evalboard_engine::lake::Cell>>)>,
    /// Each run as the manifest lists it: run id, name, what it was read from, its files.
    pub runs: Vec<(String, String, String, Vec<String>)>,
    /// The evalboard version that writes it.
    pub version: String,
}

impl LakeJob {
    /// This job and `other` (the same lake's runs held by another worker) as one lake's
    /// (`engine::lake::merge`: each table in key order; a run in both kept from this one).
    pub fn merge(self, other: LakeJob) -> LakeJob {
        use evalboard_engine::lake::{schema, LakeTables, Table};
        let tables = |j: Vec<(String, Vec<Vec<evalboard_engine::lake::Cell>>)>| LakeTables {
            tables: j
                .into_iter()
                .filter_map(|(name, rows)| {
                    Some(Table {
                        schema: schema::table(&name)?,
                        rows,
                    })
                })
                .collect(),
            warnings: Vec::new(),
        };
        let merged = evalboard_engine::lake::merge(vec![tables(self.tables), tables(other.tables)]);
        let mut runs = self.runs;
        for r in other.runs {
            if !runs.iter().any(|m| m.0 == r.0) {
                runs.push(r);
            }
        }
        LakeJob {
            req: self.req,
            file: self.file,
            tables: merged
                .tables
                .into_iter()
                .map(|t| (t.schema.name.to_string(), t.rows))
                .collect(),
            runs,
            version: self.version,
        }
    }
}

/// The job of writing `runs` as a lake (`engine::lake::build`, no comparisons) into `file`.
pub fn job(
    req: crate::protocol::ReqId,
    file: String,
    runs: &[evalboard_engine::lake::LakeRun<'_>],
    version: &str,
) -> LakeJob {
    let opts = evalboard_engine::compare::CompareOptions::default();
    let built = evalboard_engine::lake::build(runs, &[], &opts, version);
    LakeJob {
        req,
        file,
        tables: built
            .tables
            .into_iter()
            .map(|t| (t.schema.name.to_string(), t.rows))
            .collect(),
        runs: runs
            .iter()
            .map(|r| {
                (
                    evalboard_engine::lake::run_id(&r.content_id),
                    r.run.name().to_string(),
                    "dashboard".to_string(),
                    r.files.iter().map(|f| f.0.clone()).collect(),
                )
            })
            .collect(),
        version: version.to_string(),
    }
}
