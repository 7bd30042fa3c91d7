//! One lake table ⇄ one Parquet file.

use std::sync::Arc;

use bytes::Bytes;
use evalboard_engine::lake::{Cell, CellRef, ColType, Table, TableSchema};
use parquet::basic::{Compression, LogicalType, Repetition, TimeUnit, Type as Physical, ZstdLevel};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::metadata::SortingColumn;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::record::Field;
use parquet::schema::types::ColumnPath;
use parquet::schema::types::Type;

use crate::LakeError;

/// Rows per row group: a reader skips row groups by their `run_id` statistics.
const ROW_GROUP_ROWS: usize = 64 * 1024;
/// A row group ends before its rows do once its strings reach this many bytes (a table of
/// texts): a writer holds two row groups per table (one filled, one encoded), so this bounds
/// its memory, whatever the rows hold.
const ROW_GROUP_BYTES: usize = 2 << 20;

/// How a file's pages are compressed. The CLI writes zstd; every reader opens all three.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    Zstd,
    Snappy,
    Uncompressed,
}

impl Codec {
    /// The name the manifest gives the codec.
    pub fn name(self) -> &'static str {
        match self {
            Codec::Zstd => "zstd",
            Codec::Snappy => "snappy",
            Codec::Uncompressed => "uncompressed",
        }
    }

    fn compression(self) -> Result<Compression, parquet::errors::ParquetError> {
        Ok(match self {
            Codec::Zstd => Compression::ZSTD(ZstdLevel::try_new(1)?),
            Codec::Snappy => Compression::SNAPPY,
            Codec::Uncompressed => Compression::UNCOMPRESSED,
        })
    }
}

fn column_type(name: &str, ty: ColType, nullable: bool) -> parquet::errors::Result<Type> {
    let (physical, logical) = match ty {
        ColType::Str | ColType::Text => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
        ColType::Int64 => (Physical::INT64, None),
        ColType::Float64 => (Physical::DOUBLE, None),
        ColType::Bool => (Physical::BOOLEAN, None),
        ColType::TimestampMicros => (
            Physical::INT64,
            Some(LogicalType::timestamp(true, TimeUnit::MICROS)),
        ),
    };
    Type::primitive_type_builder(name, physical)
        .with_logical_type(logical)
        .with_repetition(if nullable {
            Repetition::OPTIONAL
        } else {
            Repetition::REQUIRED
        })
        .build()
}

fn message_type(schema: &TableSchema) -> parquet::errors::Result<Type> {
    let fields = schema
        .columns
        .iter()
        .map(|c| column_type(c.name, c.ty, c.nullable).map(Arc::new))
        .collect::<parquet::errors::Result<Vec<_>>>()?;
    Type::group_type_builder(schema.name)
        .with_fields(fields)
        .build()
}

/// The table as a Parquet file: one row group per 65,536 rows or 2 MB of strings, laid out as
/// the writer's properties say (a dictionary and statistics where they pay), `created_by`
/// fixed to `created_by` (no clock, no library version), so the same table gives the same
/// bytes. `file` names the file in errors. A [`TableWriter`] fed the rows.
pub fn encode(
    table: &Table,
    codec: Codec,
    created_by: &str,
    file: &str,
) -> Result<Vec<u8>, LakeError> {
    let problems = table.check();
    if let Some(p) = problems.first() {
        return Err(LakeError::file(file, p));
    }
    let mut w = TableWriter::new(table.schema, codec, created_by, file)?;
    let mut cells = Vec::with_capacity(table.schema.columns.len());
    for row in &table.rows {
        cells.clear();
        cells.extend(row.iter().map(Cell::as_ref));
        w.push(&cells)?;
    }
    Ok(w.finish()?.0)
}

/// One column's values of the row group being filled.
enum ColumnBuffer {
    /// The strings end to end, and where each ends: no allocation per value.
    Bytes {
        data: Vec<u8>,
        ends: Vec<usize>,
    },
    Int(Vec<i64>),
    Float(Vec<f64>),
    Bool(Vec<bool>),
}

impl ColumnBuffer {
    fn of(ty: ColType) -> ColumnBuffer {
        match ty {
            ColType::Str | ColType::Text => ColumnBuffer::Bytes {
                data: Vec::new(),
                ends: Vec::new(),
            },
            ColType::Int64 | ColType::TimestampMicros => ColumnBuffer::Int(Vec::new()),
            ColType::Float64 => ColumnBuffer::Float(Vec::new()),
            ColType::Bool => ColumnBuffer::Bool(Vec::new()),
        }
    }
}

/// A row group's columns: each column's values and definition levels (1 where the row has a
/// value).
struct Group {
    rows: usize,
    values: Vec<ColumnBuffer>,
    /// A nullable column's definition levels (none for the others: every row has a value).
    defs: Vec<Vec<i16>>,
}

impl Group {
    fn new(schema: &TableSchema) -> Group {
        Group {
            rows: 0,
            values: schema
                .columns
                .iter()
                .map(|c| ColumnBuffer::of(c.ty))
                .collect(),
            defs: vec![Vec::new(); schema.columns.len()],
        }
    }

    /// A group of no column (a placeholder while one is sent).
    #[cfg(not(target_arch = "wasm32"))]
    fn empty() -> Group {
        Group {
            rows: 0,
            values: Vec::new(),
            defs: Vec::new(),
        }
    }

    /// Empties the group, keeping its buffers' memory for the next row group.
    fn clear(&mut self) {
        self.rows = 0;
        for v in &mut self.values {
            match v {
                ColumnBuffer::Bytes { data, ends } => {
                    data.clear();
                    ends.clear();
                }
                ColumnBuffer::Int(v) => v.clear(),
                ColumnBuffer::Float(v) => v.clear(),
                ColumnBuffer::Bool(v) => v.clear(),
            }
        }
        for d in &mut self.defs {
            d.clear();
        }
    }
}

/// A column's values take a dictionary when its first row group holds at most this many
/// distinct values (a run id, a scorer, a label, a 0/1 value), and at most one per two rows.
/// An item key, a text or a JSON object of its own is written plain: a dictionary of them costs
/// a hash per value and saves nothing zstd does not.
const DICTIONARY_MAX_VALUES: usize = 4096;

/// Values handed to the column writer at a time: a string column's values are slices of a copy
/// of these values' bytes ([`Encoder::write`]).
const BATCH_VALUES: usize = 1024;

/// Whether `values` (a column of a first row group) has few enough distinct values for a
/// dictionary ([`DICTIONARY_MAX_VALUES`]).
fn few_values(values: &ColumnBuffer) -> bool {
    fn few<T: std::hash::Hash + Eq>(n: usize, mut items: impl Iterator<Item = T>) -> bool {
        let cap = DICTIONARY_MAX_VALUES.min(n / 2 + 1);
        let mut seen = std::collections::HashSet::new();
        items.all(|v| {
            seen.insert(v);
            seen.len() <= cap
        })
    }
    match values {
        ColumnBuffer::Bytes { data, ends } => {
            let mut start = 0;
            let items = ends.iter().map(|&end| {
                let v = data.get(start..end).unwrap_or_default();
                start = end;
                v
            });
            few(ends.len(), items)
        }
        ColumnBuffer::Int(v) => few(v.len(), v.iter().copied()),
        ColumnBuffer::Float(v) => few(v.len(), v.iter().map(|x| x.to_bits())),
        ColumnBuffer::Bool(_) => false,
    }
}

/// The file's writer properties, column by column from its first row group (`None`: the
/// table is empty): zstd at level 1 (or the codec given); statistics per column chunk (no page
/// index) for the table's key columns, which a reader prunes row groups by (`crate::slices`),
/// and for numbers, Booleans and times, none for other strings; a dictionary only for a
/// column of few values ([`few_values`]), plain encoding otherwise.
fn properties(
    schema: &TableSchema,
    codec: Codec,
    created_by: &str,
    first: Option<&Group>,
) -> parquet::errors::Result<WriterProperties> {
    let mut b = WriterProperties::builder()
        .set_compression(codec.compression()?)
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_dictionary_enabled(false)
        .set_write_batch_size(BATCH_VALUES)
        .set_created_by(created_by.to_string())
        .set_sorting_columns(Some(vec![SortingColumn {
            column_idx: 0,
            descending: false,
            nulls_first: false,
        }]));
    for (i, c) in schema.columns.iter().enumerate() {
        let path = ColumnPath::from(c.name);
        // A string's min and max cost a comparison per value and prune nothing but by a key.
        let string = matches!(c.ty, ColType::Str | ColType::Text);
        if string && !schema.key.contains(&c.name) {
            b = b.set_column_statistics_enabled(path.clone(), EnabledStatistics::None);
        }
        if first.and_then(|g| g.values.get(i)).is_some_and(few_values) {
            b = b.set_column_dictionary_enabled(path, true);
        }
    }
    Ok(b.build())
}

/// The Parquet writer of one file: row groups in, bytes out. Its properties are chosen by its
/// first row group ([`properties`]): the same rows, the same bytes.
struct Encoder {
    schema: &'static TableSchema,
    codec: Codec,
    created_by: String,
    writer: Option<SerializedFileWriter<Vec<u8>>>,
}

impl Encoder {
    fn new(
        schema: &'static TableSchema,
        codec: Codec,
        created_by: &str,
    ) -> parquet::errors::Result<Encoder> {
        // The codec is checked now, not at the first row group.
        codec.compression()?;
        Ok(Encoder {
            schema,
            codec,
            created_by: created_by.to_string(),
            writer: None,
        })
    }

    fn open(
        &self,
        first: Option<&Group>,
    ) -> parquet::errors::Result<SerializedFileWriter<Vec<u8>>> {
        let props = properties(self.schema, self.codec, &self.created_by, first)?;
        SerializedFileWriter::new(
            Vec::new(),
            Arc::new(message_type(self.schema)?),
            Arc::new(props),
        )
    }

    fn write(&mut self, group: &Group) -> parquet::errors::Result<()> {
        let writer = match &mut self.writer {
            Some(w) => w,
            None => self.writer.insert(self.open(Some(group))?),
        };
        let mut rg = writer.next_row_group()?;
        let mut columns = self
            .schema
            .columns
            .iter()
            .zip(&group.values)
            .zip(&group.defs);
        while let Some(mut col) = rg.next_column()? {
            let Some(((c, values), def)) = columns.next() else {
                return Err(parquet::errors::ParquetError::General(
                    "more columns than the schema".into(),
                ));
            };
            let levels = c.nullable.then_some(def.as_slice());
            match values {
                ColumnBuffer::Bytes { data, ends } => {
                    // A batch's values are slices of one copy of its bytes: the chunk's
                    // statistics keep their min and max (`Bytes` slices) until the file is
                    // finished, and so keep only the batches they are in, not the row group's
                    // strings.
                    let w = col.typed::<ByteArrayType>();
                    let mut batch: Vec<ByteArray> = Vec::with_capacity(BATCH_VALUES);
                    let (mut start, mut at, mut row) = (0, 0, 0);
                    let rows = group.rows;
                    loop {
                        let upto = (row + BATCH_VALUES).min(rows);
                        let levels = levels.and_then(|l| l.get(row..upto));
                        let n = match levels {
                            Some(l) => l.iter().filter(|&&d| d == 1).count(),
                            None => upto - row,
                        };
                        let batch_ends = ends.get(at..at + n).unwrap_or_default();
                        let base = start;
                        let last = batch_ends.last().copied().unwrap_or(start);
                        let bytes =
                            Bytes::copy_from_slice(data.get(base..last).unwrap_or_default());
                        batch.clear();
                        for &end in batch_ends {
                            batch.push(ByteArray::from(bytes.slice(start - base..end - base)));
                            start = end;
                        }
                        w.write_batch(&batch, levels, None)?;
                        at += n;
                        row = upto;
                        if row >= rows {
                            break;
                        }
                    }
                }
                ColumnBuffer::Int(v) => {
                    col.typed::<Int64Type>().write_batch(v, levels, None)?;
                }
                ColumnBuffer::Float(v) => {
                    col.typed::<DoubleType>().write_batch(v, levels, None)?;
                }
                ColumnBuffer::Bool(v) => {
                    col.typed::<BoolType>().write_batch(v, levels, None)?;
                }
            }
            col.close()?;
        }
        rg.close()?;
        Ok(())
    }

    fn finish(self) -> parquet::errors::Result<Vec<u8>> {
        match self.writer {
            Some(w) => w.into_inner(),
            None => self.open(None)?.into_inner(),
        }
    }
}

/// Where full row groups go: encoded at once, or (natively) by a thread of the table's own, so
/// building rows and compressing them overlap.
enum Pipe {
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    Inline(Encoder),
    #[cfg(not(target_arch = "wasm32"))]
    Thread {
        send: std::sync::mpsc::SyncSender<Group>,
        /// Row groups written, emptied, for the next ones to fill: a table's buffers are
        /// allocated once, not per row group.
        back: std::sync::mpsc::Receiver<Group>,
        done: std::thread::JoinHandle<parquet::errors::Result<Vec<u8>>>,
    },
    /// The thread was joined (after an error; no thread on wasm32).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    Joined,
}

/// A table written as Parquet row by row ([`TableWriter::push`]), a row group at a time: the
/// rows are buffered column by column (a column's strings in one buffer) and encoded
/// every 65,536 rows or 2 MB of strings, natively on a thread of the writer's own while the next row group is
/// filled, so the table is never held whole. The bytes equal [`encode`]'s of the same rows.
pub struct TableWriter {
    schema: &'static TableSchema,
    file: String,
    pipe: Pipe,
    group: Group,
    buffered: usize,
    /// The strings' bytes buffered.
    bytes: usize,
    rows: u64,
}

impl TableWriter {
    /// A writer of `schema`'s table, compressed by `codec`, its `created_by` fixed; `file` names
    /// the file in errors.
    pub fn new(
        schema: &'static TableSchema,
        codec: Codec,
        created_by: &str,
        file: &str,
    ) -> Result<TableWriter, LakeError> {
        let encoder =
            Encoder::new(schema, codec, created_by).map_err(|e| LakeError::file(file, e))?;
        #[cfg(not(target_arch = "wasm32"))]
        let pipe = {
            // One row group being encoded, one being filled.
            let (send, recv) = std::sync::mpsc::sync_channel::<Group>(0);
            let (give_back, back) = std::sync::mpsc::channel::<Group>();
            let mut encoder = encoder;
            let done = std::thread::Builder::new()
                .name(format!("lake {}", schema.name))
                .spawn(move || {
                    for mut group in recv {
                        encoder.write(&group)?;
                        group.clear();
                        // The writer may be gone (it stopped on an error): the group is dropped.
                        let _ = give_back.send(group);
                    }
                    encoder.finish()
                });
            match done {
                Ok(done) => Pipe::Thread { send, back, done },
                Err(e) => return Err(LakeError::file(file, e)),
            }
        };
        #[cfg(target_arch = "wasm32")]
        let pipe = Pipe::Inline(encoder);
        Ok(TableWriter {
            schema,
            file: file.to_string(),
            pipe,
            group: Group::new(schema),
            buffered: 0,
            bytes: 0,
            rows: 0,
        })
    }

    /// Adds a row, one cell per column: a row of the wrong width, a cell of the wrong type or a
    /// null in a column that is not nullable is an error (as [`Table::check`] says it).
    pub fn push(&mut self, cells: &[CellRef<'_>]) -> Result<(), LakeError> {
        let cols = self.schema.columns;
        let name = self.schema.name;
        let r = self.rows;
        if cells.len() != cols.len() {
            return Err(LakeError::file(
                &self.file,
                format!(
                    "{name} row {r}: {} cells for {} columns",
                    cells.len(),
                    cols.len()
                ),
            ));
        }
        for (c, cell) in cols.iter().zip(cells) {
            if !cell.fits(c.ty) || (*cell == CellRef::Null && !c.nullable) {
                return Err(LakeError::file(
                    &self.file,
                    format!("{name} row {r}: column {} holds {cell:?}", c.name),
                ));
            }
        }
        let g = &mut self.group;
        let columns = cols.iter().zip(cells).zip(&mut g.values).zip(&mut g.defs);
        for (((c, cell), values), def) in columns {
            if c.nullable {
                def.push(i16::from(*cell != CellRef::Null));
            }
            match (cell, values) {
                (CellRef::Str(s), ColumnBuffer::Bytes { data, ends }) => {
                    data.extend_from_slice(s.as_bytes());
                    ends.push(data.len());
                    self.bytes += s.len();
                }
                (CellRef::Int(i) | CellRef::Micros(i), ColumnBuffer::Int(v)) => v.push(*i),
                (CellRef::Float(x), ColumnBuffer::Float(v)) => v.push(*x),
                (CellRef::Bool(b), ColumnBuffer::Bool(v)) => v.push(*b),
                _ => {}
            }
        }
        g.rows += 1;
        self.buffered += 1;
        self.rows += 1;
        if self.buffered == ROW_GROUP_ROWS || self.bytes >= ROW_GROUP_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Sends the buffered rows to be encoded as a row group.
    fn flush(&mut self) -> Result<(), LakeError> {
        if self.buffered == 0 {
            return Ok(());
        }
        self.buffered = 0;
        self.bytes = 0;
        let failed = match &mut self.pipe {
            Pipe::Inline(encoder) => {
                let failed = encoder.write(&self.group).err().map(|e| e.to_string());
                self.group.clear();
                failed
            }
            #[cfg(not(target_arch = "wasm32"))]
            Pipe::Thread { send, back, .. } => {
                let group = std::mem::replace(&mut self.group, Group::empty());
                let failed = send
                    .send(group)
                    .err()
                    .map(|_| "the encoder stopped".to_string());
                // The thread took this group after giving the one before it back.
                self.group = back.try_recv().unwrap_or_else(|_| Group::new(self.schema));
                failed
            }
            Pipe::Joined => Some("the encoder stopped".to_string()),
        };
        match failed {
            // A stopped thread says why when it is joined.
            #[cfg(not(target_arch = "wasm32"))]
            Some(_) if matches!(self.pipe, Pipe::Thread { .. }) => self.join().map(|_| ()),
            Some(e) => Err(LakeError::file(&self.file, e)),
            None => Ok(()),
        }
    }

    /// Waits for a threaded encoder (its channel closed) and takes its bytes.
    #[cfg(not(target_arch = "wasm32"))]
    fn join(&mut self) -> Result<Vec<u8>, LakeError> {
        let err = |m: String| LakeError::file(&self.file, m);
        match std::mem::replace(&mut self.pipe, Pipe::Joined) {
            Pipe::Thread { send, done, .. } => {
                drop(send);
                match done.join() {
                    Ok(r) => r.map_err(|e| err(e.to_string())),
                    Err(_) => Err(err("the encoder thread panicked".into())),
                }
            }
            _ => Err(err("no encoder thread".into())),
        }
    }

    /// The file's bytes and its row count.
    pub fn finish(mut self) -> Result<(Vec<u8>, u64), LakeError> {
        self.flush()?;
        let rows = self.rows;
        #[cfg(not(target_arch = "wasm32"))]
        if matches!(self.pipe, Pipe::Thread { .. }) {
            return Ok((self.join()?, rows));
        }
        let file = self.file;
        match self.pipe {
            Pipe::Inline(encoder) => encoder
                .finish()
                .map(|b| (b, rows))
                .map_err(|e| LakeError::file(&file, e)),
            _ => Err(LakeError::file(&file, "the encoder stopped")),
        }
    }
}

/// The table of a Parquet file written by [`encode`] (or by another writer with the same
/// columns; zstd, snappy or uncompressed): its columns must be the schema's, by name and
/// order. `file` names the file in errors: a truncated or corrupt file is an error, never a
/// panic.
pub fn decode(
    bytes: Vec<u8>,
    schema: &'static TableSchema,
    file: &str,
) -> Result<Table, LakeError> {
    let reader = SerializedFileReader::new(Bytes::from(bytes))
        .map_err(|e| LakeError::file(file, e.to_string()))?;
    decode_reader(&reader, schema, file)
}

/// [`decode`] of an opened reader: every row of the row groups it reads (all of them, or those
/// its options kept: [`crate::slices`]).
pub(crate) fn decode_reader<R: parquet::file::reader::ChunkReader + 'static>(
    reader: &SerializedFileReader<R>,
    schema: &'static TableSchema,
    file: &str,
) -> Result<Table, LakeError> {
    let err = |m: String| LakeError::file(file, m);
    let descr = reader.metadata().file_metadata().schema_descr();
    let names: Vec<String> = descr
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    let want: Vec<&str> = schema.columns.iter().map(|c| c.name).collect();
    // A file written before a nullable column was added at the end of its table (v1 grows
    // only so) reads with that column null.
    let missing = want.get(names.len()..).unwrap_or_default();
    let older = names.len() < want.len()
        && want.starts_with(&names.iter().map(String::as_str).collect::<Vec<_>>())
        && schema
            .columns
            .get(names.len()..)
            .unwrap_or_default()
            .iter()
            .all(|c| c.nullable);
    if names != want && !older {
        return Err(err(format!(
            "its columns ({}) are not those of the `{}` table ({})",
            names.join(", "),
            schema.name,
            want.join(", ")
        )));
    }
    let rows_iter = reader.get_row_iter(None).map_err(|e| err(e.to_string()))?;
    let mut rows = Vec::new();
    for row in rows_iter {
        let row = row.map_err(|e| err(e.to_string()))?;
        let mut cells = Vec::with_capacity(want.len());
        for (c, (_, field)) in schema.columns.iter().zip(row.get_column_iter()) {
            cells.push(match field {
                Field::Null => Cell::Null,
                Field::Str(s) => Cell::Str(s.clone()),
                Field::Long(i) if c.ty == ColType::Int64 => Cell::Int(*i),
                Field::Long(i) | Field::TimestampMicros(i) => Cell::Micros(*i),
                Field::Double(x) => Cell::Float(*x),
                Field::Bool(b) => Cell::Bool(*b),
                other => {
                    return Err(err(format!(
                        "column {} holds {other:?}, not a {}",
                        c.name,
                        c.ty.name()
                    )))
                }
            });
        }
        cells.extend(missing.iter().map(|_| Cell::Null));
        rows.push(cells);
    }
    let table = Table { schema, rows };
    match table.check().first() {
        Some(p) => Err(err(p.clone())),
        None => Ok(table),
    }
}

/// Every row of any Parquet file of flat columns (a SQL engine's output), as `(column, cell)`:
/// integers of any width as [`Cell::Int`], floats as [`Cell::Float`], strings, Booleans and
/// timestamps; a nested or binary column is an error naming the file and column.
pub fn read_rows(bytes: Vec<u8>, file: &str) -> Result<Vec<Vec<(String, Cell)>>, LakeError> {
    let err = |m: String| LakeError::file(file, m);
    let reader = SerializedFileReader::new(Bytes::from(bytes)).map_err(|e| err(e.to_string()))?;
    let rows_iter = reader.get_row_iter(None).map_err(|e| err(e.to_string()))?;
    let mut rows = Vec::new();
    for row in rows_iter {
        let row = row.map_err(|e| err(e.to_string()))?;
        let mut cells = Vec::new();
        for (name, field) in row.get_column_iter() {
            let cell = match field {
                Field::Null => Cell::Null,
                Field::Bool(b) => Cell::Bool(*b),
                Field::Byte(i) => Cell::Int(i64::from(*i)),
                Field::Short(i) => Cell::Int(i64::from(*i)),
                Field::Int(i) => Cell::Int(i64::from(*i)),
                Field::Long(i) => Cell::Int(*i),
                Field::UByte(i) => Cell::Int(i64::from(*i)),
                Field::UShort(i) => Cell::Int(i64::from(*i)),
                Field::UInt(i) => Cell::Int(i64::from(*i)),
                Field::ULong(i) => Cell::Int(i64::try_from(*i).unwrap_or(i64::MAX)),
                Field::Float(x) => Cell::Float(f64::from(*x)),
                Field::Double(x) => Cell::Float(*x),
                Field::Decimal(d) => Cell::Str(format!("{d:?}")),
                Field::Str(s) => Cell::Str(s.clone()),
                Field::TimestampMicros(t) => Cell::Micros(*t),
                Field::TimestampMillis(t) => Cell::Micros(t.saturating_mul(1000)),
                other => {
                    return Err(err(format!(
                        "column {name} holds {other:?}: not a flat value"
                    )))
                }
            };
            cells.push((name.clone(), cell));
        }
        rows.push(cells);
    }
    Ok(rows)
}
