//! Every table of a lake written as its rows are built: a [`RowSink`] for
//! [`evalboard_engine::lake::build_into`] with one [`TableWriter`] per table.

use evalboard_engine::lake::{CellRef, RowSink, TableSchema, TABLES};

use crate::{Codec, LakeError, TableWriter};

/// One Parquet file per table of the schema, filled row by row; the first error is kept and
/// the rows after it are dropped ([`LakeWriter::finish`] returns it).
pub struct LakeWriter {
    tables: Vec<TableWriter>,
    error: Option<LakeError>,
}

/// A table's file as written: its schema, its bytes and its rows.
pub struct WrittenTable {
    pub schema: &'static TableSchema,
    pub bytes: Vec<u8>,
    pub rows: u64,
}

impl LakeWriter {
    /// Writers of every table in [`TABLES`] order, `path_of` naming each table's file (in
    /// errors).
    pub fn new(
        codec: Codec,
        created_by: &str,
        path_of: impl Fn(&TableSchema) -> String,
    ) -> Result<LakeWriter, LakeError> {
        let tables = TABLES
            .iter()
            .map(|s| TableWriter::new(s, codec, created_by, &path_of(s)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(LakeWriter {
            tables,
            error: None,
        })
    }

    /// Every table's file, in [`TABLES`] order, or the first error.
    pub fn finish(self) -> Result<Vec<WrittenTable>, LakeError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        TABLES
            .iter()
            .zip(self.tables)
            .map(|(&schema, w)| {
                let (bytes, rows) = w.finish()?;
                Ok(WrittenTable {
                    schema,
                    bytes,
                    rows,
                })
            })
            .collect()
    }
}

impl RowSink for LakeWriter {
    fn row(&mut self, table: &'static TableSchema, cells: &[CellRef<'_>]) {
        if self.error.is_some() {
            return;
        }
        let at = TABLES.iter().position(|s| s.name == table.name);
        let Some(w) = at.and_then(|i| self.tables.get_mut(i)) else {
            self.error = Some(LakeError::file(
                table.name,
                "a table the schema does not have",
            ));
            return;
        };
        if let Err(e) = w.push(cells) {
            self.error = Some(e);
        }
    }
}
