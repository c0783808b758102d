//! Fuzz target: see `webgate::fuzzing::search_response` for the property.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| webgate::fuzzing::search_response(data));
