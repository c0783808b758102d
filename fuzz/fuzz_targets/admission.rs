//! Fuzz target: see `webgate::fuzzing::admission` for the property.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| webgate::fuzzing::admission(data));
