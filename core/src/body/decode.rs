//! Streaming decompression under the byte cap (contract §7).
//!
//! A body arrives as chunks and is pushed through a stack of decoders, one
//! per `Content-Encoding` coding (undone in reverse order), into a
//! `Collector` that counts inflated bytes *as they are produced*. Every
//! decoder step writes at most [`SCRATCH`] bytes before the collector sees
//! them, so a decompression bomb is refused at most one step past the cap
//! and memory stays the cap plus a small constant per stage.

use flate2::{Decompress, FlushDecompress, Status};

/// How much one decoder step may produce before the next stage sees it.
pub const SCRATCH: usize = 64 * 1024;

/// More codings than this on one body are refused as unreadable: no real
/// server stacks more, and each stage costs a scratch buffer.
pub const MAX_CODINGS: usize = 8;

/// What happens when the inflated body reaches the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapMode {
    /// HTML, JSON, XML: one byte over the cap refuses the whole body.
    Refuse,
    /// Flat text: keep the first cap bytes and stop reading.
    Truncate,
}

/// Why a body could not be turned into bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BodyFail {
    /// It inflated past the cap (in [`CapMode::Refuse`]).
    Cap,
    /// A coding we do not know, too many codings, or a corrupt or truncated
    /// compressed stream.
    Unreadable,
}

/// Whether to keep reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Push the next chunk.
    More,
    /// The cap was reached in [`CapMode::Truncate`]: stop reading.
    Full,
}

/// The decoded bytes of a whole body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Body {
    /// The inflated bytes, at most the cap.
    pub bytes: Vec<u8>,
    /// True when the cap cut the body ([`CapMode::Truncate`] only).
    pub truncated: bool,
}

/// The content codings, outermost first as the header lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coding {
    /// `gzip`, `x-gzip`.
    Gzip,
    /// `deflate`: zlib-wrapped, or raw deflate as some servers send.
    Deflate,
    /// `br`.
    Brotli,
    /// `zstd`.
    Zstd,
}

impl Coding {
    /// The coding's canonical name.
    pub fn as_str(self) -> &'static str {
        match self {
            Coding::Gzip => "gzip",
            Coding::Deflate => "deflate",
            Coding::Brotli => "br",
            Coding::Zstd => "zstd",
        }
    }
}

/// What `Accept-Encoding` offers: the codings this build can undo (`br`
/// with the `brotli` feature, `zstd` with `zstd`).
pub const ACCEPT_ENCODING: &str = match (cfg!(feature = "brotli"), cfg!(feature = "zstd")) {
    (true, true) => "gzip, deflate, br, zstd",
    (true, false) => "gzip, deflate, br",
    (false, true) => "gzip, deflate, zstd",
    (false, false) => "gzip, deflate",
};

/// Parses every `Content-Encoding` header value, in order. Names are
/// case-insensitive; `identity` and empty list members are dropped. A
/// coding this build cannot undo (`br` or `zstd` with its feature off,
/// though never offered) is refused like an unknown one.
pub fn parse_codings<'a>(
    values: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<Coding>, BodyFail> {
    let mut out = Vec::new();
    for v in values {
        for name in v.split(',') {
            let name = name.trim_matches([' ', '\t']).to_ascii_lowercase();
            let c = match name.as_str() {
                "" | "identity" => continue,
                "gzip" | "x-gzip" => Coding::Gzip,
                "deflate" => Coding::Deflate,
                "br" if cfg!(feature = "brotli") => Coding::Brotli,
                "zstd" if cfg!(feature = "zstd") => Coding::Zstd,
                _ => return Err(BodyFail::Unreadable),
            };
            out.push(c);
        }
    }
    if out.len() > MAX_CODINGS {
        return Err(BodyFail::Unreadable);
    }
    Ok(out)
}

/// The end of the pipeline: keeps at most `cap` bytes.
///
/// The last decoder writes straight into `bytes` (no scratch copy): the
/// buffer is kept zero-filled past `filled`, grown by doubling up to
/// `cap + 1` bytes, so a decoder can always be handed a window one byte
/// larger than the room left — that byte is how a body one byte over the
/// cap is told apart from one exactly at it.
#[derive(Debug)]
struct Collector {
    bytes: Vec<u8>,
    filled: usize,
    cap: usize,
    mode: CapMode,
    truncated: bool,
    inflated: u64,
}

/// Why pushing stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    Cap,
    Full,
    Corrupt,
}

impl Collector {
    fn new(cap: usize, mode: CapMode) -> Self {
        Collector {
            bytes: Vec::new(),
            filled: 0,
            cap,
            mode,
            truncated: false,
            inflated: 0,
        }
    }

    /// Where the last decoder writes its next step: all the zero-filled
    /// slack there is (at least [`SCRATCH`], grown by doubling), but never
    /// more than the room left plus the one byte that tells "over the cap"
    /// from "exactly at it". So the buffer never passes `cap + 1` bytes.
    fn window(&mut self) -> &mut [u8] {
        let limit = self.cap.saturating_add(1);
        let want = (self.filled + SCRATCH).min(limit);
        if self.bytes.len() < want {
            let doubled = self.bytes.len().saturating_mul(2).min(limit);
            self.bytes.resize(want.max(doubled), 0);
        }
        &mut self.bytes[self.filled..]
    }

    /// Takes `n` bytes the last decoder wrote into [`Collector::window`].
    fn commit(&mut self, n: usize) -> Result<(), Stop> {
        self.inflated += n as u64;
        let room = self.cap - self.filled;
        if n <= room {
            self.filled += n;
            return Ok(());
        }
        match self.mode {
            CapMode::Refuse => Err(Stop::Cap),
            CapMode::Truncate => {
                self.filled = self.cap;
                self.truncated = true;
                Err(Stop::Full)
            }
        }
    }

    /// Takes bytes that were not inflated here (an identity body).
    fn accept(&mut self, data: &[u8]) -> Result<(), Stop> {
        let room = self.cap - self.filled;
        let keep = data.len().min(room);
        // Counted like decoder output: up to one byte past the cap.
        self.inflated += (keep + usize::from(keep < data.len())) as u64;
        // Drop any zeroed slack first: a plain copy needs none.
        self.bytes.truncate(self.filled);
        self.bytes.extend_from_slice(&data[..keep]);
        self.filled += keep;
        if keep == data.len() {
            return Ok(());
        }
        match self.mode {
            CapMode::Refuse => Err(Stop::Cap),
            CapMode::Truncate => {
                self.truncated = true;
                Err(Stop::Full)
            }
        }
    }

    fn into_bytes(mut self) -> Vec<u8> {
        self.bytes.truncate(self.filled);
        self.bytes
    }
}

/// One decoder. `step` consumes some input and produces at most
/// `out.len()` bytes; `end` checks the stream is complete and hands back
/// anything still held.
enum Decoder {
    Gzip(Box<Gunzip>),
    Deflate(Inflate),
    #[cfg(feature = "brotli")]
    Brotli(Box<BrotliState>),
    #[cfg(feature = "zstd")]
    Zstd {
        d: Box<zstd::stream::raw::Decoder<'static>>,
        frame_done: bool,
    },
}

#[cfg(feature = "brotli")]
type BrotliState = brotli_decompressor::BrotliState<
    brotli_decompressor::StandardAlloc,
    brotli_decompressor::StandardAlloc,
    brotli_decompressor::StandardAlloc,
>;

/// True when two bytes start a zlib stream (RFC 1950: CM = 8, CINFO ≤ 7,
/// header checksum); anything else under `deflate` is taken as raw deflate.
fn is_zlib_header(b0: u8, b1: u8) -> bool {
    b0 & 0x0f == 8 && b0 >> 4 <= 7 && (u16::from(b0) << 8 | u16::from(b1)) % 31 == 0
}

/// `deflate`: the first two bytes decide zlib or raw deflate.
struct Inflate {
    head: Vec<u8>,
    d: Option<Decompress>,
    ended: bool,
}

impl Inflate {
    fn step(&mut self, input: &[u8], out: &mut [u8]) -> Result<(usize, usize), Stop> {
        let mut taken = 0;
        if self.d.is_none() {
            taken = (2 - self.head.len()).min(input.len());
            self.head.extend_from_slice(&input[..taken]);
            if self.head.len() < 2 {
                return Ok((taken, 0));
            }
            self.d = Some(Decompress::new(is_zlib_header(self.head[0], self.head[1])));
        }
        if !self.head.is_empty() {
            // The buffered head bytes go first; `input` beyond them waits.
            let head = std::mem::take(&mut self.head);
            let (used, produced) = self.run(&head, out)?;
            self.head = head[used..].to_vec();
            return Ok((taken, produced));
        }
        self.run(input, out)
    }

    fn run(&mut self, data: &[u8], out: &mut [u8]) -> Result<(usize, usize), Stop> {
        if self.ended {
            return if data.is_empty() {
                Ok((0, 0))
            } else {
                Err(Stop::Corrupt)
            };
        }
        // OK because `step` sets it before calling `run`.
        let d = self.d.as_mut().expect("decoder chosen");
        let (in0, out0) = (d.total_in(), d.total_out());
        let st = d
            .decompress(data, out, FlushDecompress::None)
            .map_err(|_| Stop::Corrupt)?;
        self.ended = st == Status::StreamEnd;
        Ok((
            (d.total_in() - in0) as usize,
            (d.total_out() - out0) as usize,
        ))
    }
}

/// `gzip` (RFC 1952): the header, raw deflate into the caller's buffer,
/// then the CRC-32 and length trailer, all as bytes arrive. A body may be
/// several members one after another (§2.2, what `gzip_static` serves for
/// concatenated files): after a member's trailer checks out, the next
/// byte starts a new member's header.
#[derive(Default)]
struct Gunzip {
    head: Vec<u8>,
    inflate: Option<Decompress>,
    crc: flate2::Crc,
    trailer: Vec<u8>,
    done: bool,
}

/// A gzip header longer than this (huge FEXTRA, endless FNAME) is refused.
const MAX_GZIP_HEADER: usize = 64 * 1024;

/// The length of a complete gzip header at the start of `h`, `Ok(None)`
/// when more bytes are needed, `Err` when it is not gzip.
fn gzip_header_len(h: &[u8]) -> Result<Option<usize>, Stop> {
    if h.len() >= 2 && (h[0] != 0x1f || h[1] != 0x8b) || h.len() >= 3 && h[2] != 8 {
        return Err(Stop::Corrupt);
    }
    if h.len() < 10 {
        return Ok(None);
    }
    let flags = h[3];
    if flags & 0xe0 != 0 {
        return Err(Stop::Corrupt); // reserved bits
    }
    let mut at = 10;
    if flags & 0x04 != 0 {
        if h.len() < at + 2 {
            return Ok(None);
        }
        at += 2 + usize::from(u16::from_le_bytes([h[at], h[at + 1]]));
    }
    for bit in [0x08, 0x10] {
        if flags & bit != 0 {
            match h
                .get(at..)
                .and_then(|rest| rest.iter().position(|&b| b == 0))
            {
                Some(z) => at += z + 1,
                None => return Ok(None),
            }
        }
    }
    if flags & 0x02 != 0 {
        at += 2;
    }
    Ok((h.len() >= at).then_some(at))
}

impl Gunzip {
    fn step(&mut self, input: &[u8], out: &mut [u8]) -> Result<(usize, usize), Stop> {
        if self.trailer.len() == 8 && !input.is_empty() {
            // Another member follows a complete one.
            if !self.member_complete() {
                return Err(Stop::Corrupt);
            }
            *self = Gunzip::default();
        }
        if self.inflate.is_none() {
            // Buffer the header (bounded), then start inflating after it.
            let before = self.head.len();
            let take = input.len().min(MAX_GZIP_HEADER + 1 - before);
            self.head.extend_from_slice(&input[..take]);
            match gzip_header_len(&self.head)? {
                None if self.head.len() > MAX_GZIP_HEADER => return Err(Stop::Corrupt),
                None => return Ok((take, 0)),
                Some(len) => {
                    self.inflate = Some(Decompress::new(false));
                    // Bytes of this input after the header are consumed next.
                    let used = len - before;
                    self.head.clear();
                    return Ok((used, 0));
                }
            }
        }
        if self.done {
            // The trailer; bytes after it are the next member's, taken by
            // the next call.
            let take = input.len().min(8 - self.trailer.len());
            self.trailer.extend_from_slice(&input[..take]);
            return Ok((take, 0));
        }
        // OK because it was set when the header ended.
        let d = self.inflate.as_mut().expect("inflater");
        let (in0, out0) = (d.total_in(), d.total_out());
        let st = d
            .decompress(input, out, FlushDecompress::None)
            .map_err(|_| Stop::Corrupt)?;
        let used = (d.total_in() - in0) as usize;
        let produced = (d.total_out() - out0) as usize;
        self.crc.update(&out[..produced]);
        self.done = st == Status::StreamEnd;
        Ok((used, produced))
    }

    fn is_complete(&self) -> bool {
        self.member_complete()
    }

    /// The current member has ended and its trailer matches its data.
    fn member_complete(&self) -> bool {
        if !self.done || self.trailer.len() != 8 {
            return false;
        }
        let t = &self.trailer;
        let crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
        let size = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
        crc == self.crc.sum() && size == self.crc.amount()
    }
}

impl Decoder {
    fn new(c: Coding) -> Result<Self, BodyFail> {
        Ok(match c {
            Coding::Gzip => Decoder::Gzip(Box::default()),
            Coding::Deflate => Decoder::Deflate(Inflate {
                head: Vec::new(),
                d: None,
                ended: false,
            }),
            #[cfg(feature = "brotli")]
            Coding::Brotli => Decoder::Brotli(Box::new(BrotliState::new(
                Default::default(),
                Default::default(),
                Default::default(),
            ))),
            #[cfg(feature = "zstd")]
            Coding::Zstd => {
                let mut d = zstd::stream::raw::Decoder::new().map_err(|_| BodyFail::Unreadable)?;
                // A frame may ask for a window of up to 2 GiB; 16 MiB is
                // more than any encoder's default and bounds memory.
                d.set_parameter(zstd::zstd_safe::DParameter::WindowLogMax(24))
                    .map_err(|_| BodyFail::Unreadable)?;
                Decoder::Zstd {
                    d: Box::new(d),
                    frame_done: false,
                }
            }
            // Never parsed in such a build (see `parse_codings`).
            #[allow(unreachable_patterns)]
            _ => return Err(BodyFail::Unreadable),
        })
    }

    /// Consumes some of `input`, writes into `out`; returns (consumed, produced).
    fn step(&mut self, input: &[u8], out: &mut [u8]) -> Result<(usize, usize), Stop> {
        match self {
            Decoder::Gzip(g) => g.step(input, out),
            Decoder::Deflate(i) => i.step(input, out),
            #[cfg(feature = "brotli")]
            Decoder::Brotli(state) => {
                let (mut avail_in, mut in_off) = (input.len(), 0usize);
                let (mut avail_out, mut out_off, mut total) = (out.len(), 0usize, 0usize);
                let r = brotli_decompressor::BrotliDecompressStream(
                    &mut avail_in,
                    &mut in_off,
                    input,
                    &mut avail_out,
                    &mut out_off,
                    out,
                    &mut total,
                    state,
                );
                match r {
                    brotli_decompressor::BrotliResult::ResultFailure => Err(Stop::Corrupt),
                    brotli_decompressor::BrotliResult::ResultSuccess if in_off < input.len() => {
                        Err(Stop::Corrupt) // data after the end of the stream
                    }
                    _ => Ok((in_off, out_off)),
                }
            }
            #[cfg(feature = "zstd")]
            Decoder::Zstd { d, frame_done } => {
                let st = zstd::stream::raw::Operation::run_on_buffers(d.as_mut(), input, out)
                    .map_err(|_| Stop::Corrupt)?;
                if st.bytes_read > 0 || st.bytes_written > 0 {
                    *frame_done = st.remaining == 0;
                }
                Ok((st.bytes_read, st.bytes_written))
            }
        }
    }

    /// After all input: is the stream complete?
    fn is_complete(&self) -> bool {
        match self {
            Decoder::Gzip(g) => g.is_complete(),
            Decoder::Deflate(i) => i.ended,
            #[cfg(feature = "brotli")]
            Decoder::Brotli(state) => brotli_decompressor::BrotliDecoderIsFinished(state),
            #[cfg(feature = "zstd")]
            Decoder::Zstd { frame_done, .. } => *frame_done,
        }
    }
}

struct Stage {
    decoder: Decoder,
    scratch: Vec<u8>,
}

/// The whole pipeline: decoders (innermost coding last) into the collector.
pub struct BodyDecoder {
    stages: Vec<Stage>,
    sink: Collector,
    received: u64,
    failed: Option<BodyFail>,
}

impl std::fmt::Debug for BodyDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BodyDecoder")
            .field("stages", &self.stages.len())
            .field("received", &self.received)
            .field("inflated", &self.sink.inflated)
            .finish()
    }
}

/// One step of the first stage, its output pushed on through the rest.
/// Returns (input used, bytes produced, room the stage was given).
fn step_once(
    stages: &mut [Stage],
    sink: &mut Collector,
    input: &[u8],
) -> Result<(usize, usize, usize), Stop> {
    let (first, rest) = stages.split_first_mut().ok_or(Stop::Corrupt)?;
    if rest.is_empty() {
        // The innermost coding inflates straight into the collector.
        let window = sink.window();
        let room = window.len();
        let (used, produced) = first.decoder.step(input, window)?;
        sink.commit(produced)?;
        return Ok((used, produced, room));
    }
    let room = first.scratch.len();
    let (used, produced) = first.decoder.step(input, &mut first.scratch)?;
    if produced > 0 {
        // Split borrow: the scratch buffer is read while `rest` is fed.
        let out = std::mem::take(&mut first.scratch);
        let r = feed(rest, sink, &out[..produced]);
        first.scratch = out;
        r?;
    }
    Ok((used, produced, room))
}

/// Pushes `input` through `stages` into `sink`, iteratively per stage and
/// recursively across the (at most [`MAX_CODINGS`]) stages.
fn feed(stages: &mut [Stage], sink: &mut Collector, mut input: &[u8]) -> Result<(), Stop> {
    if stages.is_empty() {
        return sink.accept(input);
    }
    loop {
        let (used, produced, room) = step_once(stages, sink, input)?;
        input = &input[used..];
        // Done when the input is used up and the decoder had no more to say
        // (it filled less than the room it was given).
        if input.is_empty() && produced < room {
            return Ok(());
        }
        if used == 0 && produced == 0 {
            return Err(Stop::Corrupt);
        }
    }
}

impl BodyDecoder {
    /// A pipeline for these codings (outermost first, as in the header).
    pub fn new(codings: &[Coding], cap: u64, mode: CapMode) -> Result<Self, BodyFail> {
        let last = codings.len().saturating_sub(1);
        let stages = codings
            .iter()
            .rev()
            .enumerate()
            .map(|(i, &c)| {
                Ok(Stage {
                    decoder: Decoder::new(c)?,
                    // The last stage writes into the collector itself.
                    scratch: if i == last {
                        Vec::new()
                    } else {
                        vec![0; SCRATCH]
                    },
                })
            })
            .collect::<Result<Vec<_>, BodyFail>>()?;
        let cap = usize::try_from(cap).unwrap_or(usize::MAX);
        Ok(BodyDecoder {
            stages,
            // Grown as bytes come, never reserved up front from a header.
            sink: Collector::new(cap, mode),
            received: 0,
            failed: None,
        })
    }

    /// Reserves room for `n` inflated bytes, at most the cap: a declared
    /// length can save reallocations, and a lying one costs no more than
    /// the cap would anyway.
    pub fn reserve(&mut self, n: u64) {
        let n = usize::try_from(n).unwrap_or(usize::MAX).min(self.sink.cap);
        let have = self.sink.bytes.len();
        self.sink.bytes.reserve(n.saturating_sub(have));
    }

    /// Bytes received from the network so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Bytes the decoders produced so far (may pass the cap by at most one
    /// decoder step when the body is refused).
    pub fn inflated(&self) -> u64 {
        self.sink.inflated
    }

    /// Pushes one chunk of the body as it arrived.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Flow, BodyFail> {
        if let Some(f) = self.failed {
            return Err(f);
        }
        if self.sink.truncated {
            return Ok(Flow::Full);
        }
        self.received += chunk.len() as u64;
        match feed(&mut self.stages, &mut self.sink, chunk) {
            Ok(()) => Ok(Flow::More),
            Err(Stop::Full) => Ok(Flow::Full),
            Err(Stop::Cap) => Err(*self.failed.insert(BodyFail::Cap)),
            Err(Stop::Corrupt) => Err(*self.failed.insert(BodyFail::Unreadable)),
        }
    }

    /// Ends the body: every compressed stream must be complete (unless the
    /// cap cut it in truncate mode).
    pub fn finish(mut self) -> Result<Body, BodyFail> {
        if let Some(f) = self.failed {
            return Err(f);
        }
        // Drain each stage in turn, outermost first: stepping with no input
        // flushes what a decoder still holds into the next stage.
        for i in 0..self.stages.len() {
            loop {
                if self.sink.truncated {
                    break;
                }
                match step_once(&mut self.stages[i..], &mut self.sink, &[]) {
                    Ok((_, 0, _)) => break,
                    Ok(_) | Err(Stop::Full) => {}
                    Err(Stop::Cap) => return Err(BodyFail::Cap),
                    Err(Stop::Corrupt) => return Err(BodyFail::Unreadable),
                }
            }
            if !self.sink.truncated && !self.stages[i].decoder.is_complete() {
                return Err(BodyFail::Unreadable);
            }
        }
        Ok(Body {
            truncated: self.sink.truncated,
            bytes: self.sink.into_bytes(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Accept-Encoding` offers exactly what this build can undo, and a
    /// coding it cannot undo is refused (run with and without features).
    #[test]
    fn offered_codings_are_the_compiled_ones() {
        for (name, on) in [
            ("br", cfg!(feature = "brotli")),
            ("zstd", cfg!(feature = "zstd")),
        ] {
            assert_eq!(ACCEPT_ENCODING.split(", ").any(|c| c == name), on, "{name}");
            assert_eq!(parse_codings([name]).is_ok(), on, "{name}");
        }
        assert!(ACCEPT_ENCODING.starts_with("gzip, deflate"));
        assert!(parse_codings(["gzip", "deflate"]).is_ok());
    }
}
