//! Fuzz target: the compiled table against the ipnet linear-scan reference.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| webgate_fuzz::table_diff(data));
