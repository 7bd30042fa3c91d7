//! A bounded zip reader for Inspect `.eval` logs: the central directory (end-of-central-directory
//! record, zip64 when present), members stored (method 0), deflated (8, `miniz_oxide`) or zstd
//! (93, multi-frame, `ruzstd`). Pure Rust, no recursion, no indexing on offsets read from the
//! input (every slice goes through `get`), and no allocation sized by a declared size alone:
//! every member's output is capped by [`Limits`] (the archive's real size × a ratio, and an
//! absolute cap), so a member that would inflate past the cap is an error, not an allocation.

use std::collections::BTreeMap;

/// The output caps of one archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Output bytes allowed per input byte of the whole archive (deflate's own maximum ratio is
    /// about 1032:1; zstd on repetitive JSON logs stays far below).
    pub ratio: u64,
    /// Output bytes allowed for one member, whatever the ratio; also for all members together
    /// in an archive under `absolute / total_per_byte` bytes.
    pub absolute: u64,
    /// Output bytes allowed for all members together per input byte, when that is above
    /// `absolute`: a big log (a 1 GB `.eval` inflates to several GB of JSON, parsed and dropped
    /// a member at a time) is read whole, while a small archive still cannot make the reader
    /// inflate more than `absolute` bytes.
    pub total_per_byte: u64,
    /// Central-directory entries read at most.
    pub max_entries: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            ratio: 1100,
            absolute: 1 << 30,
            total_per_byte: 32,
            max_entries: 1_000_000,
        }
    }
}

impl Limits {
    /// Output bytes allowed for one member of an archive of `input_len` bytes.
    pub fn cap_for(&self, input_len: usize) -> u64 {
        (input_len as u64)
            .saturating_mul(self.ratio)
            .min(self.absolute)
    }

    /// Output bytes allowed for all members of an archive of `input_len` bytes together.
    pub fn total_cap_for(&self, input_len: usize) -> u64 {
        let len = input_len as u64;
        len.saturating_mul(self.ratio)
            .min(self.absolute.max(len.saturating_mul(self.total_per_byte)))
    }
}

/// Compression of one member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Stored,
    Deflate,
    Zstd,
    Other(u16),
}

impl Method {
    fn of(code: u16) -> Method {
        match code {
            0 => Method::Stored,
            8 => Method::Deflate,
            93 => Method::Zstd,
            other => Method::Other(other),
        }
    }
    pub fn label(&self) -> String {
        match self {
            Method::Stored => "stored".into(),
            Method::Deflate => "deflate".into(),
            Method::Zstd => "zstd".into(),
            Method::Other(m) => format!("method {m}"),
        }
    }
}

/// One central-directory entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub method: Method,
    pub flags: u16,
    pub crc32: u32,
    pub compressed_size: u64,
    /// As declared; never used to size an allocation beyond the cap.
    pub uncompressed_size: u64,
    pub local_header_offset: u64,
}

/// A parsed archive held in memory: its [`Index`] and the bytes the members are read from.
#[derive(Debug, Clone)]
pub struct Archive<'a> {
    bytes: &'a [u8],
    index: Index,
}

impl std::ops::Deref for Archive<'_> {
    type Target = Index;
    fn deref(&self) -> &Index {
        &self.index
    }
}

/// An archive's central directory, read on its own: its entries in central-directory order, and
/// what was odd about it. Where the archive is not in memory (a big `File` in the browser, read
/// a slice at a time), the directory comes from [`Index::read`] over the file's tail and its
/// directory bytes, and a member from [`Index::data_range`] and [`Index::decode`].
#[derive(Debug, Clone)]
pub struct Index {
    pub entries: Vec<Entry>,
    /// Member names that appear more than once (the last entry wins, as Inspect reads them).
    pub duplicates: Vec<String>,
    /// Problems with the directory that did not stop reading (entries skipped, zip64 fields missing).
    pub warnings: Vec<String>,
    /// Each name's entry (the last one with that name), so a lookup is not a scan: a 100,000
    /// member log would spend seconds in scans.
    by_name: std::collections::HashMap<String, usize>,
    cap: u64,
    /// Output bytes allowed for all members together.
    total_cap: u64,
    /// Output bytes handed out so far (all members together stay under `total_cap`).
    spent: std::cell::Cell<u64>,
}

const EOCD_SIG: u32 = 0x0605_4b50;
const ZIP64_LOCATOR_SIG: u32 = 0x0706_4b50;
const ZIP64_EOCD_SIG: u32 = 0x0606_4b50;
const CDH_SIG: u32 = 0x0201_4b50;
const LFH_SIG: u32 = 0x0403_4b50;

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    let s = b.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([
        s.first().copied()?,
        s.get(1).copied()?,
    ]))
}
fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    let s: [u8; 4] = b.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(s))
}
fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    let s: [u8; 8] = b.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(s))
}
fn usize_of(v: u64) -> Option<usize> {
    usize::try_from(v).ok()
}

/// Where the central directory is, from the end records: absolute file offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Directory {
    pub offset: u64,
    pub size: u64,
    pub entries: u64,
}

/// Why the end records of an archive's tail do not give its directory yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Locate {
    /// The zip64 end record lies before the tail: read [`ZIP64_EOCD_LEN`] bytes at this offset and
    /// call [`directory_in`] again with them.
    Zip64RecordAt(u64),
    /// No usable directory: the reason.
    Broken(String),
}

/// The fixed part of a zip64 end-of-central-directory record.
pub const ZIP64_EOCD_LEN: u64 = 56;
/// The bytes at the end of an archive that always hold its end records (the end record with the
/// longest comment, the zip64 locator and a zip64 end record just before it).
pub const TAIL_LEN: u64 = 22 + 65_535 + 20 + ZIP64_EOCD_LEN;
/// The fixed part of a local file header (name and extra field follow).
pub const LOCAL_HEADER_LEN: u64 = 30;

fn find_eocd(b: &[u8]) -> Option<usize> {
    // The record is 22 bytes plus a comment of at most 65535 bytes, at the end of the file.
    let last = b.len().checked_sub(22)?;
    let first = last.saturating_sub(65_535);
    (first..=last)
        .rev()
        .find(|&at| u32_at(b, at) == Some(EOCD_SIG))
}

fn directory(b: &[u8]) -> Result<Directory, String> {
    directory_in(b, 0, None).map_err(|e| match e {
        Locate::Broken(e) => e,
        Locate::Zip64RecordAt(at) => {
            format!("zip64 end record at offset {at} lies outside the file")
        }
    })
}

/// The directory's place from the end records in `b`, the bytes of the archive from offset `base`
/// to its end (the whole archive, or its last [`TAIL_LEN`] bytes); `zip64` is the zip64 end record
/// and its offset when an earlier call asked for it.
pub fn directory_in(b: &[u8], base: u64, zip64: Option<(u64, &[u8])>) -> Result<Directory, Locate> {
    let broken = |e: &str| Locate::Broken(e.to_string());
    let eocd = find_eocd(b).ok_or_else(|| {
        broken("no end-of-central-directory record (not a zip archive, or truncated)")
    })?;
    let field16 = |off: usize| u16_at(b, eocd + off).ok_or_else(|| broken("truncated end record"));
    let field32 = |off: usize| u32_at(b, eocd + off).ok_or_else(|| broken("truncated end record"));
    let mut entries = u64::from(field16(10)?);
    let mut size = u64::from(field32(12)?);
    let mut offset = u64::from(field32(16)?);
    let needs64 = entries == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF;
    // A zip64 locator sits just before the end record when the writer used zip64 (Inspect's
    // streamed members are written with force_zip64).
    let locator = eocd
        .checked_sub(20)
        .filter(|&at| u32_at(b, at) == Some(ZIP64_LOCATOR_SIG));
    if let Some(loc) = locator {
        let at = u64_at(b, loc + 8).ok_or_else(|| broken("bad zip64 locator"))?;
        // The record, from `b` when it lies there, else from the bytes read for it.
        let record: Option<&[u8]> = match at.checked_sub(base).and_then(usize_of) {
            Some(rel) => b.get(rel..),
            None => match zip64 {
                Some((o, bytes)) if o == at => Some(bytes),
                _ => return Err(Locate::Zip64RecordAt(at)),
            },
        };
        let record = record.unwrap_or(&[]);
        if u32_at(record, 0) == Some(ZIP64_EOCD_SIG) {
            let f = |off: usize| {
                u64_at(record, off).ok_or_else(|| broken("truncated zip64 end record"))
            };
            entries = f(32)?;
            size = f(40)?;
            offset = f(48)?;
        } else if needs64 {
            return Err(broken("zip64 locator points at no zip64 end record"));
        }
    } else if needs64 {
        return Err(broken(
            "end record says zip64 but there is no zip64 locator",
        ));
    }
    Ok(Directory {
        offset,
        size,
        entries,
    })
}

/// The most end records [`last_readable`] tries, from the end of the archive backwards.
const MAX_TRIED: usize = 16;

/// The last central directory in `bytes` (a whole archive, perhaps caught while a writer was
/// rewriting its end) that reads: the end records found from the end backwards (at most
/// 16), the first whose directory lies inside the bytes before it and whose every
/// entry's local header is where it says. `Err`: why the last one tried did not read.
pub fn last_readable(bytes: &[u8], limits: Limits) -> Result<Index, String> {
    let sig = EOCD_SIG.to_le_bytes();
    let mut end = bytes.len();
    let mut why =
        "no end-of-central-directory record (not a zip archive, or truncated)".to_string();
    for _ in 0..MAX_TRIED {
        let Some(at) = bytes
            .get(..end)
            .and_then(|b| memchr::memmem::rfind(b, &sig))
        else {
            break;
        };
        end = at;
        let comment = usize::from(u16_at(bytes, at + 20).unwrap_or(0));
        let stop = at
            .saturating_add(22)
            .saturating_add(comment)
            .min(bytes.len());
        let Some(b) = bytes.get(..stop) else { continue };
        let read = directory(b).and_then(|dir| {
            let (start, end) = Index::directory_range(&dir, stop as u64)?;
            let cd = b
                .get(usize_of(start).unwrap_or(usize::MAX)..usize_of(end).unwrap_or(0))
                .ok_or("central directory out of range")?;
            Index::read(cd, &dir, bytes.len() as u64, limits)
        });
        match read {
            Ok(index)
                if index.entries.iter().all(|e| {
                    usize_of(e.local_header_offset)
                        .is_some_and(|o| o < at && u32_at(bytes, o) == Some(LFH_SIG))
                }) =>
            {
                return Ok(index)
            }
            Ok(_) => {
                why =
                    format!("the directory ending at offset {at} names members that are not there")
            }
            Err(e) => why = e,
        }
    }
    Err(why)
}

impl<'a> Archive<'a> {
    /// Reads the central directory of `bytes`. `Err` when there is no usable directory at all.
    pub fn parse(bytes: &'a [u8], limits: Limits) -> Result<Archive<'a>, String> {
        let dir = directory(bytes)?;
        let (start, end) = Index::directory_range(&dir, bytes.len() as u64)?;
        let cd = bytes
            .get(start as usize..end as usize)
            .ok_or("central directory out of range")?;
        let index = Index::read(cd, &dir, bytes.len() as u64, limits)?;
        Ok(Archive { bytes, index })
    }

    /// The decompressed bytes of `entry`, checked against its CRC-32 and the caps.
    pub fn read(&self, entry: &Entry) -> Result<Vec<u8>, String> {
        let data = self.data_of(entry)?;
        self.index.decode(entry, data)
    }

    /// `entry`'s JSON with every text past `bound` characters cut as it is inflated
    /// ([`Index::decode_json`]): what a reader of a sample's messages holds of a text bomb.
    pub fn read_json(&self, entry: &Entry, bound: u64) -> Result<Vec<u8>, String> {
        let data = self.data_of(entry)?;
        Ok(self.index.decode_json(entry, data, bound)?.0)
    }

    /// The compressed bytes of `entry`.
    fn data_of(&self, entry: &Entry) -> Result<&'a [u8], String> {
        let b = self.bytes;
        let (start, len) = Index::data_range(
            entry,
            b.get(usize_of(entry.local_header_offset).unwrap_or(usize::MAX)..)
                .unwrap_or(&[]),
        )?;
        usize_of(start)
            .zip(usize_of(len))
            .and_then(|(s, l)| b.get(s..s.checked_add(l)?))
            .ok_or_else(|| Index::data_past_end((start, len), b.len() as u64))
    }
}

impl Index {
    /// The byte range `[start, end)` of the central directory `dir` in a file of `file_len`
    /// bytes, or why it lies outside.
    pub fn directory_range(dir: &Directory, file_len: u64) -> Result<(u64, u64), String> {
        dir.offset
            .checked_add(dir.size)
            .filter(|&end| end <= file_len && usize_of(end).is_some())
            .map(|end| (dir.offset, end))
            .ok_or_else(|| {
                format!(
                    "central directory ({} bytes at offset {}) lies outside the file ({file_len} bytes)",
                    dir.size, dir.offset
                )
            })
    }

    /// Reads the central directory `cd` (the bytes of [`Index::directory_range`]) of an archive of
    /// `file_len` bytes. `Err` when there is no usable directory at all.
    pub fn read(
        cd: &[u8],
        dir: &Directory,
        file_len: u64,
        limits: Limits,
    ) -> Result<Index, String> {
        let mut warnings = Vec::new();
        // Every entry takes at least 46 bytes: the declared count cannot make us loop longer.
        let max_by_size = cd.len() / 46;
        let declared = usize_of(dir.entries).unwrap_or(usize::MAX);
        if declared > max_by_size {
            warnings.push(format!(
                "central directory declares {declared} entries but has room for {max_by_size}"
            ));
        }
        let want = declared.min(max_by_size).min(limits.max_entries);
        let mut entries = Vec::with_capacity(want.min(4096));
        let mut at = 0usize;
        for i in 0..want {
            match entry_at(cd, at) {
                Ok((entry, next)) => {
                    entries.push(entry);
                    at = next;
                }
                Err(e) => {
                    warnings.push(format!(
                        "central directory entry {i}: {e}; later entries skipped"
                    ));
                    break;
                }
            }
        }
        if entries.is_empty() && want > 0 {
            return Err(warnings.join("; "));
        }
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        let mut by_name = std::collections::HashMap::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            *seen.entry(e.name.as_str()).or_default() += 1;
            by_name.insert(e.name.clone(), i);
        }
        let duplicates = seen
            .into_iter()
            .filter(|(_, n)| *n > 1)
            .map(|(name, _)| name.to_string())
            .collect();
        Ok(Index {
            entries,
            duplicates,
            warnings,
            by_name,
            cap: limits.cap_for(usize_of(file_len).unwrap_or(usize::MAX)),
            total_cap: limits.total_cap_for(usize_of(file_len).unwrap_or(usize::MAX)),
            spent: std::cell::Cell::new(0),
        })
    }

    /// The entry a name resolves to: the **last** one with that name (Inspect's rule for
    /// re-run samples appended under the same name).
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.entries.get(*self.by_name.get(name)?)
    }

    /// Names in central-directory order, each once (at its last position's entry).
    pub fn names(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for e in &self.entries {
            if seen.insert(e.name.as_str()) {
                out.push(e.name.as_str());
            }
        }
        out
    }

    /// The output cap of one member.
    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// Where `entry`'s compressed bytes lie — `(offset, length)` in the file — from `local`, the
    /// file's bytes from the entry's local header on (at least the header, its name and extra
    /// field: [`LOCAL_HEADER_LEN`] + 2 × 65,535 bytes are always enough).
    pub fn data_range(entry: &Entry, local: &[u8]) -> Result<(u64, u64), String> {
        let lh = entry.local_header_offset;
        if u32_at(local, 0) != Some(LFH_SIG) {
            return Err(format!("no local header at offset {lh}"));
        }
        let name_len = u16_at(local, 26).ok_or("truncated local header")?;
        let extra_len = u16_at(local, 28).ok_or("truncated local header")?;
        let start = lh
            .checked_add(LOCAL_HEADER_LEN + u64::from(name_len) + u64::from(extra_len))
            .ok_or("local header offset out of range")?;
        Ok((start, entry.compressed_size))
    }

    /// Why a member's data at `(offset, length)` cannot be read from a file of `size` bytes.
    pub fn data_past_end((at, len): (u64, u64), size: u64) -> String {
        format!(
            "member data ({len} bytes at offset {at}) runs past the end of the file ({size} bytes): truncated archive"
        )
    }

    /// The decompressed bytes of `entry` from its compressed bytes `data`, checked against its
    /// CRC-32 and the caps.
    pub fn decode(&self, entry: &Entry, data: &[u8]) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        self.decode_to(entry, data, &mut |chunk: &[u8]| {
            out.extend_from_slice(chunk)
        })?;
        Ok(out)
    }

    /// `entry`'s JSON from its compressed bytes `data`, every text past `bound` characters cut
    /// as it is inflated ([`super::long_text`]), so a member whose texts inflate to any size
    /// holds at most its structure and `bound` characters a text; checked against its CRC-32 and
    /// the caps like [`Index::decode`].
    pub fn decode_json(
        &self,
        entry: &Entry,
        data: &[u8],
        bound: u64,
    ) -> Result<(Vec<u8>, Vec<super::long_text::CutText>), String> {
        // Room for the member as it says it inflates, at most 8 bytes a compressed byte (JSON
        // inflates ~5-10x; more grows as it comes) and 64 MiB: never sized by a declared size
        // alone.
        let room = entry
            .uncompressed_size
            .min((data.len() as u64).saturating_mul(8).saturating_add(4096))
            .min(64 << 20);
        let mut cut = super::long_text::TextCut::with_capacity(bound, usize_of(room).unwrap_or(0));
        self.decode_to(entry, data, &mut |chunk: &[u8]| cut.take(chunk))?;
        Ok(cut.finish())
    }

    /// Decompresses `entry` from its compressed bytes `data` a chunk at a time into `sink` (at
    /// most 256 KB of output held at once here), checking the caps as it goes and the CRC-32 and
    /// size at the end. An `Err` may come after some chunks were given.
    pub fn decode_to(
        &self,
        entry: &Entry,
        data: &[u8],
        sink: &mut dyn FnMut(&[u8]),
    ) -> Result<(), String> {
        let remaining = self
            .cap
            .min(self.total_cap.saturating_sub(self.spent.get()));
        if entry.flags & 1 != 0 {
            return Err("encrypted member".into());
        }
        let mut written = 0u64;
        let mut crc = Crc32::new();
        let mut give = |chunk: &[u8]| -> Result<(), String> {
            written = written.saturating_add(chunk.len() as u64);
            if written > remaining {
                return Err(over_cap(remaining));
            }
            crc.update(chunk);
            sink(chunk);
            Ok(())
        };
        let decoded = match entry.method {
            Method::Stored => {
                if data.len() as u64 > remaining {
                    return Err(over_cap(remaining));
                }
                data.chunks(CHUNK).try_for_each(&mut give)
            }
            Method::Deflate => inflate(data, entry.uncompressed_size, &mut give),
            Method::Zstd => unzstd(data, remaining, &mut give),
            Method::Other(m) => return Err(format!("unsupported compression method {m}")),
        };
        decoded?;
        // What a member that failed inflated is not counted: the others stay readable.
        self.spent.set(self.spent.get().saturating_add(written));
        if written != entry.uncompressed_size {
            return Err(format!(
                "member decompresses to {written} bytes, the directory says {}",
                entry.uncompressed_size
            ));
        }
        let crc = crc.value();
        if crc != entry.crc32 {
            return Err(format!(
                "CRC-32 mismatch (computed {crc:08x}, recorded {:08x})",
                entry.crc32
            ));
        }
        Ok(())
    }
}

/// Most bytes of output handed on at once (and the largest size of deflate's ring buffer).
const CHUNK: usize = 1 << 18;

fn over_cap(cap: u64) -> String {
    format!("member output exceeds the cap of {cap} bytes (input size × ratio, absolute cap); not decompressed")
}

fn entry_at(cd: &[u8], at: usize) -> Result<(Entry, usize), String> {
    if u32_at(cd, at) != Some(CDH_SIG) {
        return Err("bad signature".into());
    }
    let f16 = |off: usize| u16_at(cd, at + off).ok_or("truncated entry");
    let f32_ = |off: usize| u32_at(cd, at + off).ok_or("truncated entry");
    let flags = f16(8)?;
    let method = Method::of(f16(10)?);
    let crc32 = f32_(16)?;
    let mut compressed_size = u64::from(f32_(20)?);
    let mut uncompressed_size = u64::from(f32_(24)?);
    let name_len = usize::from(f16(28)?);
    let extra_len = usize::from(f16(30)?);
    let comment_len = usize::from(f16(32)?);
    let mut local_header_offset = u64::from(f32_(42)?);
    let name_start = at + 46;
    let name = cd
        .get(name_start..name_start + name_len)
        .ok_or("truncated name")?;
    let name = String::from_utf8_lossy(name).into_owned();
    let extra = cd
        .get(name_start + name_len..name_start + name_len + extra_len)
        .ok_or("truncated extra field")?;
    // Zip64 extended information: the 64-bit values, in this order, of the fields set to all ones.
    let mut x = 0usize;
    while x + 4 <= extra.len() {
        let id = u16_at(extra, x).unwrap_or(0);
        let len = usize::from(u16_at(extra, x + 2).unwrap_or(0));
        let body = extra.get(x + 4..x + 4 + len).unwrap_or(&[]);
        if id == 0x0001 {
            let mut p = 0usize;
            let mut take = |field: &mut u64| -> Result<(), String> {
                if *field == 0xFFFF_FFFF {
                    *field = u64_at(body, p).ok_or("zip64 extra field too short")?;
                    p += 8;
                }
                Ok(())
            };
            take(&mut uncompressed_size)?;
            take(&mut compressed_size)?;
            take(&mut local_header_offset)?;
        }
        x += 4 + len;
    }
    let next = name_start + name_len + extra_len + comment_len;
    Ok((
        Entry {
            name,
            method,
            flags,
            crc32,
            compressed_size,
            uncompressed_size,
            local_header_offset,
        },
        next,
    ))
}

/// Inflates a raw deflate stream through a ring buffer, each stretch of output given to `give`
/// (which refuses output past the cap). The ring is a power of two from deflate's 32 KB window to
/// [`CHUNK`], as big as the member says it is (a wrong size only changes the stretches' length).
fn inflate(
    data: &[u8],
    declared: u64,
    give: &mut dyn FnMut(&[u8]) -> Result<(), String>,
) -> Result<(), String> {
    use miniz_oxide::inflate::core::{decompress, DecompressorOxide};
    use miniz_oxide::inflate::TINFLStatus;
    let size = usize::try_from(declared)
        .unwrap_or(CHUNK)
        .clamp(1 << 15, CHUNK)
        .next_power_of_two();
    let mut decomp = Box::<DecompressorOxide>::default();
    let mut ring = vec![0u8; size];
    let mut pos = 0usize;
    let mut input = data;
    loop {
        // No TINFL_FLAG_HAS_MORE_INPUT: `data` is the whole stream, so running out of it is a
        // truncated stream (FailedCannotMakeProgress), as for a whole-buffer inflate.
        let (status, used, wrote) = decompress(&mut decomp, input, &mut ring, pos, 0);
        input = input.get(used..).unwrap_or_default();
        if wrote > 0 {
            give(ring.get(pos..pos + wrote).unwrap_or_default())?;
            pos = (pos + wrote) & (size - 1);
        }
        match status {
            TINFLStatus::Done => return Ok(()),
            TINFLStatus::HasMoreOutput => {}
            status => {
                return Err(format!(
                    "deflate stream is corrupt or truncated ({status:?})"
                ))
            }
        }
    }
}

const ZSTD_MAGIC: u32 = 0xFD2F_B528;

/// The largest zstd window decoded: zstd's own default limit (`ZSTD_WINDOWLOG_LIMIT_DEFAULT`,
/// 2^27 bytes; only `zstd --long` writes more). The decoder reserves the window a frame declares
/// and keeps that much of its output, so a frame declaring the whole member as its window would
/// hold a compression bomb whole, however its texts are cut.
const MAX_ZSTD_WINDOW: u64 = 1 << 27;

/// A zstd frame's window size from its header (RFC 8878 §3.1.1.1), so that a header declaring a
/// window larger than the cap (or [`MAX_ZSTD_WINDOW`]) is refused before the decoder reserves it.
fn zstd_window(frame: &[u8]) -> Option<u64> {
    let desc = *frame.get(4)?;
    let single_segment = desc & 0x20 != 0;
    if !single_segment {
        let w = *frame.get(5)?;
        let log = 10 + u64::from(w >> 3);
        let base = 1u64 << log;
        return Some(base + (base / 8) * u64::from(w & 7));
    }
    let dict_bytes = [0usize, 1, 2, 4][usize::from(desc & 3)];
    let at = 5 + dict_bytes;
    Some(match desc >> 6 {
        0 => u64::from(*frame.get(at)?),
        1 => u64::from(u16_at(frame, at)?) + 256,
        2 => u64::from(u32_at(frame, at)?),
        _ => u64_at(frame, at)?,
    })
}

fn unzstd(
    data: &[u8],
    cap: u64,
    give: &mut dyn FnMut(&[u8]) -> Result<(), String>,
) -> Result<(), String> {
    use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
    let mut src: &[u8] = data;
    let mut decoder = FrameDecoder::new();
    let mut frames = 0usize;
    // Each pass consumes at least one frame header (≥ 6 bytes), so this ends.
    while !src.is_empty() {
        let magic = u32_at(src, 0).ok_or("truncated zstd frame header")?;
        if magic & 0xFFFF_FFF0 == 0x184D_2A50 {
            // Skippable frame: magic, 4-byte length, payload.
            let len = u32_at(src, 4).ok_or("truncated skippable frame")?;
            let skip = 8usize.saturating_add(len as usize);
            src = src.get(skip..).ok_or("truncated skippable frame")?;
            continue;
        }
        if magic != ZSTD_MAGIC {
            return Err(format!(
                "not a zstd frame after frame {frames} (magic {magic:08x})"
            ));
        }
        let window = zstd_window(src).ok_or("truncated zstd frame header")?;
        if window > cap.max(1 << 20) {
            return Err(format!(
                "zstd frame declares a {window}-byte window, over the cap of {cap} bytes"
            ));
        }
        if window > MAX_ZSTD_WINDOW {
            return Err(format!(
                "zstd frame declares a {window}-byte window, over the {MAX_ZSTD_WINDOW} bytes \
                 a zstd decoder accepts by default (zstd --long, not written by Inspect)"
            ));
        }
        decoder
            .reset(&mut src)
            .map_err(|e| format!("zstd frame {frames}: {e}"))?;
        loop {
            let finished = decoder
                .decode_blocks(&mut src, BlockDecodingStrategy::UptoBytes(1 << 20))
                .map_err(|e| format!("zstd frame {frames} is corrupt or truncated: {e}"))?;
            if let Some(chunk) = decoder.collect() {
                give(&chunk)?;
            }
            if finished {
                break;
            }
            // A frame whose block stream has no more input cannot finish.
            if src.is_empty() {
                return Err(format!("zstd frame {frames} is truncated"));
            }
        }
        frames += 1;
    }
    if frames == 0 {
        return Err("empty zstd stream".into());
    }
    Ok(())
}

/// CRC-32 (IEEE, reflected), as zip records it.
pub fn crc32(data: &[u8]) -> u32 {
    let mut c = Crc32::new();
    c.update(data);
    c.value()
}

/// A CRC-32 ([`crc32`]) computed a chunk at a time.
#[derive(Debug, Clone, Copy)]
pub struct Crc32(u32);

impl Default for Crc32 {
    fn default() -> Self {
        Crc32::new()
    }
}

impl Crc32 {
    pub fn new() -> Crc32 {
        Crc32(0xFFFF_FFFF)
    }

    /// The CRC-32 of the bytes given so far.
    pub fn value(&self) -> u32 {
        self.0 ^ 0xFFFF_FFFF
    }

    /// Adds `data` to the bytes checked.
    pub fn update(&mut self, data: &[u8]) {
        // Slicing by 8: eight tables, eight bytes a step (a 10,000-sample log inflates to ~70 MB,
        // where one table and a byte a step took 0.13 s).
        const fn tables() -> [[u32; 256]; 8] {
            let mut t = [[0u32; 256]; 8];
            let mut i = 0;
            while i < 256 {
                let mut c = i as u32;
                let mut k = 0;
                while k < 8 {
                    c = if c & 1 != 0 {
                        0xEDB8_8320 ^ (c >> 1)
                    } else {
                        c >> 1
                    };
                    k += 1;
                }
                t[0][i] = c;
                i += 1;
            }
            let mut i = 0;
            while i < 256 {
                let mut k = 1;
                while k < 8 {
                    let prev = t[k - 1][i];
                    t[k][i] = (prev >> 8) ^ t[0][(prev & 0xFF) as usize];
                    k += 1;
                }
                i += 1;
            }
            t
        }
        static T: [[u32; 256]; 8] = tables();
        let mut c = self.0;
        let mut chunks = data.chunks_exact(8);
        for ch in &mut chunks {
            let lo = u32::from_le_bytes([ch[0], ch[1], ch[2], ch[3]]) ^ c;
            let hi = u32::from_le_bytes([ch[4], ch[5], ch[6], ch[7]]);
            c = T[7][(lo & 0xFF) as usize]
                ^ T[6][((lo >> 8) & 0xFF) as usize]
                ^ T[5][((lo >> 16) & 0xFF) as usize]
                ^ T[4][(lo >> 24) as usize]
                ^ T[3][(hi & 0xFF) as usize]
                ^ T[2][((hi >> 8) & 0xFF) as usize]
                ^ T[1][((hi >> 16) & 0xFF) as usize]
                ^ T[0][(hi >> 24) as usize];
        }
        for &b in chunks.remainder() {
            c = T[0][((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8);
        }
        self.0 = c;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_of_known_string() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn crc_by_eight_bytes_is_the_bytewise_crc() {
        fn bytewise(data: &[u8]) -> u32 {
            let mut c = 0xFFFF_FFFFu32;
            for &b in data {
                c ^= u32::from(b);
                for _ in 0..8 {
                    c = if c & 1 != 0 {
                        0xEDB8_8320 ^ (c >> 1)
                    } else {
                        c >> 1
                    };
                }
            }
            c ^ 0xFFFF_FFFF
        }
        let data: Vec<u8> = (0..4099u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for len in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4099] {
            for start in [0, 1, 3] {
                let end = (start + len).min(data.len());
                assert_eq!(
                    crc32(&data[start..end]),
                    bytewise(&data[start..end]),
                    "{start}..{end}"
                );
            }
        }
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for len in 0..64 {
            let b: Vec<u8> = (0..len).map(|i| (i * 37 % 251) as u8).collect();
            assert!(Archive::parse(&b, Limits::default()).is_err());
        }
    }

    #[test]
    fn zstd_window_of_single_segment_frame() {
        // magic, descriptor: FCS flag 0, single segment, then 1-byte content size 5.
        let f = [0x28, 0xB5, 0x2F, 0xFD, 0x20, 5];
        assert_eq!(zstd_window(&f), Some(5));
    }
}
