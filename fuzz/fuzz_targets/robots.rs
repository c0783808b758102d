//! Fuzz target: see `webgate::fuzzing::robots` for the property.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| webgate::fuzzing::robots(data));
