//! Fuzz target: see `webgate::internals::fuzzing::table_diff` for the property.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| webgate::internals::fuzzing::table_diff(data));
