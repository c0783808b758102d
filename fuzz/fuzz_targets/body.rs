//! Fuzz target: see `webgate::fuzzing::body` for the property.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| webgate::fuzzing::body(data));
