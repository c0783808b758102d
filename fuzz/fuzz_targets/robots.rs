//! Fuzz target: see `webgate::internals::fuzzing::robots` for the property.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| webgate::internals::fuzzing::robots(data));
