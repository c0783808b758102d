//! Fuzz target: see `webgate::internals::fuzzing::ip_literal` for the property.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| webgate::internals::fuzzing::ip_literal(data));
