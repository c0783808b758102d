//! The body pipeline: every coding round-trips under any chunking, bombs
//! stop within one decoder step of the cap, truncated and corrupt streams
//! are unreadable, flat text is cut at the cap.

use std::io::Write;

use proptest::prelude::*;
use webgate::internals::body::{
    parse_codings, BodyDecoder, BodyFail, CapMode, Coding, Flow, SCRATCH,
};

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn raw_deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn br(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
        w.write_all(data).unwrap();
    }
    out
}

fn zstd_(data: &[u8]) -> Vec<u8> {
    zstd::stream::encode_all(data, 3).unwrap()
}

fn encode(c: Coding, data: &[u8]) -> Vec<u8> {
    match c {
        Coding::Gzip => gzip(data),
        Coding::Deflate => zlib(data),
        Coding::Brotli => br(data),
        Coding::Zstd => zstd_(data),
    }
}

/// Encodes with the codings in header order (the first listed was applied first).
fn encode_all(codings: &[Coding], data: &[u8]) -> Vec<u8> {
    codings.iter().fold(data.to_vec(), |d, &c| encode(c, &d))
}

fn run(
    codings: &[Coding],
    body: &[u8],
    chunks: &[usize],
    cap: u64,
    mode: CapMode,
) -> Result<(Vec<u8>, bool), BodyFail> {
    let mut d = BodyDecoder::new(codings, cap, mode)?;
    let mut rest = body;
    let mut i = 0;
    while !rest.is_empty() {
        let n = chunks
            .get(i)
            .copied()
            .unwrap_or(rest.len())
            .clamp(1, rest.len());
        i += 1;
        if d.push(&rest[..n])? == Flow::Full {
            break;
        }
        rest = &rest[n..];
    }
    d.finish().map(|b| (b.bytes, b.truncated))
}

fn text(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| b"the quick brown fox jumps over the lazy dog\n"[i % 44])
        .collect()
}

const ALL: [Coding; 4] = [Coding::Gzip, Coding::Deflate, Coding::Brotli, Coding::Zstd];

#[test]
fn each_coding_round_trips() {
    let data = text(300_000);
    for c in ALL {
        let body = encode(c, &data);
        assert_eq!(
            run(&[c], &body, &[], 1 << 23, CapMode::Refuse).unwrap().0,
            data,
            "{c:?}"
        );
    }
    assert_eq!(
        run(
            &[Coding::Deflate],
            &raw_deflate(&data),
            &[],
            1 << 23,
            CapMode::Refuse
        )
        .unwrap()
        .0,
        data
    );
    assert_eq!(
        run(&[], &data, &[7], 1 << 23, CapMode::Refuse).unwrap().0,
        data
    );
}

#[test]
fn stacked_codings_are_undone_in_reverse_order() {
    let data = text(50_000);
    let codings = [Coding::Gzip, Coding::Brotli, Coding::Zstd, Coding::Deflate];
    let body = encode_all(&codings, &data);
    assert_eq!(
        run(&codings, &body, &[3, 1000, 1], 1 << 23, CapMode::Refuse)
            .unwrap()
            .0,
        data
    );
}

#[test]
fn coding_names() {
    assert_eq!(
        parse_codings(["GZip, x-gzip", " br ,identity,, zstd", "Deflate"]).unwrap(),
        vec![
            Coding::Gzip,
            Coding::Gzip,
            Coding::Brotli,
            Coding::Zstd,
            Coding::Deflate
        ]
    );
    assert_eq!(parse_codings(["compress"]), Err(BodyFail::Unreadable));
    assert_eq!(parse_codings(["gzip;q=1"]), Err(BodyFail::Unreadable));
    assert_eq!(
        parse_codings([&*["gzip"; 9].join(",")]),
        Err(BodyFail::Unreadable)
    );
    assert_eq!(parse_codings(["identity", ""]).unwrap(), vec![]);
}

#[test]
fn exactly_the_cap_is_accepted_and_one_more_refused() {
    let cap = 100_000u64;
    for c in [
        None,
        Some(Coding::Gzip),
        Some(Coding::Brotli),
        Some(Coding::Zstd),
        Some(Coding::Deflate),
    ] {
        let codings: Vec<Coding> = c.into_iter().collect();
        let exact = encode_all(&codings, &text(cap as usize));
        assert_eq!(
            run(&codings, &exact, &[], cap, CapMode::Refuse)
                .unwrap()
                .0
                .len(),
            cap as usize,
            "{c:?}"
        );
        let over = encode_all(&codings, &text(cap as usize + 1));
        assert_eq!(
            run(&codings, &over, &[], cap, CapMode::Refuse),
            Err(BodyFail::Cap),
            "{c:?}"
        );
    }
}

#[test]
fn flat_text_is_cut_at_the_cap() {
    let data = text(1000);
    let (bytes, truncated) =
        run(&[Coding::Gzip], &gzip(&data), &[10], 999, CapMode::Truncate).unwrap();
    assert_eq!((bytes.len(), truncated), (999, true));
    let (bytes, truncated) = run(&[], &data, &[], 1000, CapMode::Truncate).unwrap();
    assert_eq!((bytes.len(), truncated), (1000, false));
}

#[test]
fn bombs_stop_within_one_step_of_the_cap() {
    // 1 GiB of zeros would be the whole body; each coding compresses it to
    // a few hundred KiB to 1 MiB. Build 64 MiB to keep the test quick.
    let zeros = vec![0u8; 64 << 20];
    let cap = 8 << 20;
    for c in ALL {
        let bomb = encode(c, &zeros);
        let mut d = BodyDecoder::new(&[c], cap, CapMode::Refuse).unwrap();
        let mut result = Ok(Flow::More);
        for chunk in bomb.chunks(256) {
            result = d.push(chunk);
            if result.is_err() {
                break;
            }
        }
        assert_eq!(result, Err(BodyFail::Cap), "{c:?}");
        assert!(
            d.inflated() <= cap + SCRATCH as u64,
            "{c:?}: inflated {}",
            d.inflated()
        );
        // Reading stopped at the cap: well before the end of the bomb
        // (brotli and zstd squeeze this one into a few chunks at most).
        assert!(
            bomb.len() < 8192 || d.received() < bomb.len() as u64 / 4,
            "{c:?}: read {} of {}",
            d.received(),
            bomb.len()
        );
    }
}

#[test]
fn truncated_and_corrupt_streams_are_unreadable() {
    let data = text(10_000);
    for c in ALL {
        let body = encode(c, &data);
        let short = &body[..body.len() - 3];
        assert_eq!(
            run(&[c], short, &[], 1 << 23, CapMode::Refuse),
            Err(BodyFail::Unreadable),
            "{c:?} short"
        );
        let mut garbage = body.clone();
        garbage.extend_from_slice(b"trailing junk");
        assert_eq!(
            run(&[c], &garbage, &[], 1 << 23, CapMode::Refuse),
            Err(BodyFail::Unreadable),
            "{c:?} trailing"
        );
        assert_eq!(
            run(
                &[c],
                b"this is not compressed at all",
                &[],
                1 << 23,
                CapMode::Refuse
            ),
            Err(BodyFail::Unreadable),
            "{c:?} garbage"
        );
        assert_eq!(
            run(&[c], b"", &[], 1 << 23, CapMode::Refuse),
            Err(BodyFail::Unreadable),
            "{c:?} empty"
        );
    }
}

/// A gzip body of several members (RFC 1952 §2.2, what nginx's
/// `gzip_static` serves for concatenated files) decodes whole, under any
/// chunking, under the same cap on inflated bytes; a bad second member or
/// junk after the last is unreadable.
#[test]
fn gzip_members_decode_whole() {
    let (a, b, c) = (text(3_000), text(50_000), b"end\n".to_vec());
    let body = [gzip(&a), gzip(&b), gzip(&c)].concat();
    let whole = [a.clone(), b.clone(), c.clone()].concat();
    for chunks in [vec![], vec![1; 4096], vec![7, 3, 100, 1, 9999], vec![10]] {
        assert_eq!(
            run(&[Coding::Gzip], &body, &chunks, 1 << 23, CapMode::Refuse),
            Ok((whole.clone(), false)),
            "{chunks:?}"
        );
    }
    // Each member under the cap, their sum over it.
    let cap = (a.len() + b.len()) as u64;
    assert_eq!(
        run(&[Coding::Gzip], &body, &[], cap, CapMode::Refuse),
        Err(BodyFail::Cap)
    );
    assert_eq!(
        run(&[Coding::Gzip], &body, &[], cap + 4, CapMode::Refuse),
        Ok((whole.clone(), false))
    );
    let mut bad = [gzip(&a), gzip(&b)].concat();
    let at = gzip(&a).len() + 20;
    bad[at] ^= 0xff;
    assert_eq!(
        run(&[Coding::Gzip], &bad, &[], 1 << 23, CapMode::Refuse),
        Err(BodyFail::Unreadable)
    );
    let mut cut = [gzip(&a), gzip(&b)].concat();
    cut.truncate(cut.len() - 2);
    assert_eq!(
        run(&[Coding::Gzip], &cut, &[], 1 << 23, CapMode::Refuse),
        Err(BodyFail::Unreadable)
    );
    let mut padded = body.clone();
    padded.extend_from_slice(&[0, 0, 0, 0]);
    assert_eq!(
        run(&[Coding::Gzip], &padded, &[], 1 << 23, CapMode::Refuse),
        Err(BodyFail::Unreadable)
    );
}

fn coding() -> impl Strategy<Value = Coding> {
    prop_oneof![
        Just(Coding::Gzip),
        Just(Coding::Deflate),
        Just(Coding::Brotli),
        Just(Coding::Zstd)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any split of a compressed body into chunks gives the same bytes.
    #[test]
    fn any_chunking_gives_the_same_result(
        data in prop::collection::vec(any::<u8>(), 0..20_000),
        codings in prop::collection::vec(coding(), 0..3),
        chunks in prop::collection::vec(1usize..600, 0..40),
    ) {
        let body = encode_all(&codings, &data);
        prop_assert_eq!(run(&codings, &body, &chunks, 1 << 23, CapMode::Refuse).unwrap().0, data);
    }

    /// The inflated count never passes the cap by more than one step, and
    /// the outcome does not depend on chunking.
    #[test]
    fn cap_is_chunking_independent(
        len in 0usize..300_000,
        cap in 1u64..200_000,
        c in coding(),
        chunks in prop::collection::vec(1usize..5000, 0..20),
    ) {
        let body = encode(c, &text(len));
        let whole = run(&[c], &body, &[], cap, CapMode::Refuse).map(|r| r.0.len());
        let split = run(&[c], &body, &chunks, cap, CapMode::Refuse).map(|r| r.0.len());
        prop_assert_eq!(whole, split);
        prop_assert_eq!(whole.is_ok(), len as u64 <= cap);
        let mut d = BodyDecoder::new(&[c], cap, CapMode::Refuse).unwrap();
        for chunk in body.chunks(chunks.first().copied().unwrap_or(4096)) {
            if d.push(chunk).is_err() { break; }
        }
        prop_assert!(d.inflated() <= cap + SCRATCH as u64);
    }
}

proptest! {
    /// Truncation never splits a character, never exceeds `max_chars`, keeps
    /// a prefix, and cuts exactly when the text is longer.
    #[test]
    fn truncation_is_on_character_boundaries(text in any::<String>(), max in 1usize..64) {
        let mut cut = text.clone();
        let did = webgate::internals::body::truncate_chars(&mut cut, max);
        prop_assert!(cut.chars().count() <= max);
        prop_assert!(text.starts_with(&cut));
        prop_assert_eq!(did, text.chars().count() > max);
        prop_assert_eq!(cut.chars().count(), text.chars().count().min(max));
    }
}
