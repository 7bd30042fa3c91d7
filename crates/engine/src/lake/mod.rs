//! The results lake's rows (`evalboard-lake` v1, [docs/lake.md](../../../../docs/lake.md)):
//! scored runs ([`RunRef`](crate::run::RunRef)s, through the registry's run table) turned into typed tables —
//! `runs`, `samples`, `verdicts`, `aggregates`, `comparisons`, `sample_text`, `messages` —
//! each sorted by its key. Pure: no Parquet and no I/O here (the engine builds for wasm32 and
//! the main worker must not grow); `crates/lake` encodes the tables as Parquet.
//!
//! Family-free: every value comes from [`RunRef`](crate::run::RunRef)'s run-table methods (`items`, `verdicts`,
//! `judge_choices_in`, `facts_of`, `metrics`, `meta`) and [`crate::run::compare`].

mod build;
pub mod counts;
pub mod rows;
pub mod schema;
pub mod view;

pub use build::{build, build_into, merge, settings_hash, LakeRun, LakeTables, RowSink, HUMAN};
pub use schema::{ColType, Column, TableSchema, SCHEMA_NAME, SCHEMA_VERSION, TABLES};

/// One cell of a table: null, or a value of the column's [`ColType`] (plain serde: the main
/// worker sends a lake's rows to the lake worker, which writes them as Parquet).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Cell {
    Null,
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// Microseconds since 1970, UTC.
    Micros(i64),
}

impl Cell {
    /// A string cell, or null.
    pub fn opt_str(s: Option<String>) -> Cell {
        s.map_or(Cell::Null, Cell::Str)
    }

    /// A float cell, or null for `None` and for NaN (no engine reads NaN the same way).
    pub fn opt_f64(x: Option<f64>) -> Cell {
        match x {
            Some(v) if !v.is_nan() => Cell::Float(v),
            _ => Cell::Null,
        }
    }

    /// A count as int64 (saturating: no count reaches 2⁶³).
    pub fn count(n: u64) -> Cell {
        Cell::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }

    /// Whether the cell fits a column of `ty` (null fits any: the column's nullability is
    /// checked apart).
    pub fn fits(&self, ty: ColType) -> bool {
        self.as_ref().fits(ty)
    }

    /// The cell borrowed.
    pub fn as_ref(&self) -> CellRef<'_> {
        match self {
            Cell::Null => CellRef::Null,
            Cell::Str(s) => CellRef::Str(s),
            Cell::Int(i) => CellRef::Int(*i),
            Cell::Float(x) => CellRef::Float(*x),
            Cell::Bool(b) => CellRef::Bool(*b),
            Cell::Micros(t) => CellRef::Micros(*t),
        }
    }
}

/// A [`Cell`] whose text is borrowed: what [`build_into`] hands a [`RowSink`], so that a row
/// costs no allocation on its way to the writer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CellRef<'a> {
    Null,
    Str(&'a str),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// Microseconds since 1970, UTC.
    Micros(i64),
}

impl<'a> CellRef<'a> {
    /// A string cell, or null.
    pub fn opt_str(s: Option<&'a str>) -> CellRef<'a> {
        s.map_or(CellRef::Null, CellRef::Str)
    }

    /// A float cell, or null for `None` and for NaN (as [`Cell::opt_f64`]).
    pub fn opt_f64(x: Option<f64>) -> CellRef<'a> {
        match x {
            Some(v) if !v.is_nan() => CellRef::Float(v),
            _ => CellRef::Null,
        }
    }

    /// A count as int64 (saturating, as [`Cell::count`]).
    pub fn count(n: u64) -> CellRef<'a> {
        CellRef::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }

    /// Whether the cell fits a column of `ty` (as [`Cell::fits`]).
    pub fn fits(&self, ty: ColType) -> bool {
        matches!(
            (self, ty),
            (CellRef::Null, _)
                | (CellRef::Str(_), ColType::Str | ColType::Text)
                | (CellRef::Int(_), ColType::Int64)
                | (CellRef::Float(_), ColType::Float64)
                | (CellRef::Bool(_), ColType::Bool)
                | (CellRef::Micros(_), ColType::TimestampMicros)
        )
    }

    /// The cell owned.
    pub fn to_cell(self) -> Cell {
        match self {
            CellRef::Null => Cell::Null,
            CellRef::Str(s) => Cell::Str(s.to_string()),
            CellRef::Int(i) => Cell::Int(i),
            CellRef::Float(x) => Cell::Float(x),
            CellRef::Bool(b) => Cell::Bool(b),
            CellRef::Micros(t) => Cell::Micros(t),
        }
    }
}

/// One table's rows, row by row in key order, each row one cell per column of `schema`.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub schema: &'static TableSchema,
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    pub fn new(schema: &'static TableSchema) -> Table {
        Table {
            schema,
            rows: Vec::new(),
        }
    }

    /// The cells of column `name`, top to bottom (empty for an unknown column).
    pub fn column(&self, name: &str) -> Vec<&Cell> {
        match self.schema.index_of(name) {
            Some(i) => self.rows.iter().filter_map(|r| r.get(i)).collect(),
            None => Vec::new(),
        }
    }

    /// What is wrong with the rows against the schema: a row of the wrong width, a cell of the
    /// wrong type, a null in a column that is not nullable. Empty when the table is well formed.
    pub fn check(&self) -> Vec<String> {
        let mut out = Vec::new();
        let cols = self.schema.columns;
        for (r, row) in self.rows.iter().enumerate() {
            if row.len() != cols.len() {
                out.push(format!(
                    "{} row {r}: {} cells for {} columns",
                    self.schema.name,
                    row.len(),
                    cols.len()
                ));
                continue;
            }
            for (c, cell) in cols.iter().zip(row) {
                if !cell.fits(c.ty) || (*cell == Cell::Null && !c.nullable) {
                    out.push(format!(
                        "{} row {r}: column {} holds {cell:?}",
                        self.schema.name, c.name
                    ));
                }
            }
        }
        out
    }
}

/// A run's id in the lake: the first 16 hex digits of its content id.
pub fn run_id(content_id: &str) -> String {
    content_id.chars().take(16).collect()
}
