//! Fuzz target: both argument parsers on any JSON (`webgate::internals::fuzzing::arguments`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| webgate::internals::fuzzing::arguments(data));
