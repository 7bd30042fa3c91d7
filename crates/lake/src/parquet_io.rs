//! One lake table ⇄ one Parquet file.

use std::sync::Arc;

use bytes::Bytes;
use evalboard_engine::lake::{Cell, ColType, Table, TableSchema};
use parquet::basic::{Compression, LogicalType, Repetition, TimeUnit, Type as Physical, ZstdLevel};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::metadata::SortingColumn;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::record::Field;
use parquet::schema::types::Type;

use crate::LakeError;

/// Rows per row group: a reader skips row groups by their `run_id` statistics.
const ROW_GROUP_ROWS: usize = 256 * 1024;

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
            Codec::Zstd => Compression::ZSTD(ZstdLevel::try_new(3)?),
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

/// The table as a Parquet file: one row group per 262,144 rows, statistics per page,
/// `created_by` fixed to `created_by` (no clock, no library version), so the same table gives
/// the same bytes. `file` names the file in errors.
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
    encode_checked(table, codec, created_by).map_err(|e| LakeError::file(file, e))
}

fn encode_checked(
    table: &Table,
    codec: Codec,
    created_by: &str,
) -> parquet::errors::Result<Vec<u8>> {
    let schema = table.schema;
    let props = WriterProperties::builder()
        .set_compression(codec.compression()?)
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_created_by(created_by.to_string())
        .set_sorting_columns(Some(vec![SortingColumn {
            column_idx: 0,
            descending: false,
            nulls_first: false,
        }]))
        .build();
    let mut w =
        SerializedFileWriter::new(Vec::new(), Arc::new(message_type(schema)?), Arc::new(props))?;
    for rows in table.rows.chunks(ROW_GROUP_ROWS) {
        let mut rg = w.next_row_group()?;
        let mut at = 0usize;
        while let Some(mut col) = rg.next_column()? {
            let Some(c) = schema.columns.get(at) else {
                return Err(parquet::errors::ParquetError::General(
                    "more columns than the schema".into(),
                ));
            };
            let cells = rows.iter().map(|r| r.get(at).unwrap_or(&Cell::Null));
            let def: Vec<i16> = cells.clone().map(|c| i16::from(*c != Cell::Null)).collect();
            let def = c.nullable.then_some(def.as_slice());
            match c.ty {
                ColType::Str | ColType::Text => {
                    let v: Vec<ByteArray> = cells
                        .filter_map(|c| match c {
                            Cell::Str(s) => Some(ByteArray::from(s.as_bytes().to_vec())),
                            _ => None,
                        })
                        .collect();
                    col.typed::<ByteArrayType>().write_batch(&v, def, None)?;
                }
                ColType::Int64 | ColType::TimestampMicros => {
                    let v: Vec<i64> = cells
                        .filter_map(|c| match c {
                            Cell::Int(i) | Cell::Micros(i) => Some(*i),
                            _ => None,
                        })
                        .collect();
                    col.typed::<Int64Type>().write_batch(&v, def, None)?;
                }
                ColType::Float64 => {
                    let v: Vec<f64> = cells
                        .filter_map(|c| match c {
                            Cell::Float(x) => Some(*x),
                            _ => None,
                        })
                        .collect();
                    col.typed::<DoubleType>().write_batch(&v, def, None)?;
                }
                ColType::Bool => {
                    let v: Vec<bool> = cells
                        .filter_map(|c| match c {
                            Cell::Bool(b) => Some(*b),
                            _ => None,
                        })
                        .collect();
                    col.typed::<BoolType>().write_batch(&v, def, None)?;
                }
            }
            col.close()?;
            at += 1;
        }
        rg.close()?;
    }
    w.into_inner()
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
    if names != want {
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
