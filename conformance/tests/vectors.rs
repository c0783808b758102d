//! Every vector of `vectors/` as one `cargo test` trial (libtest-mimic), so
//! the README's test command covers them; plus trials for the suite rules
//! (every message id has a vector, no duplicate names, no unloaded file).

use libtest_mimic::{Arguments, Failed, Trial};
use webgate_conformance::{ca::TestCa, default_dir, runner};

fn main() {
    let args = Arguments::from_args();
    let dir = default_dir();
    let mut trials = Vec::new();
    let loaded = runner::load_dir(&dir);
    let vectors = loaded.clone().unwrap_or_default();
    let tsv = std::fs::read_to_string(dir.join("messages.tsv")).unwrap_or_default();
    let options = std::fs::read_to_string(dir.join("option-messages.tsv")).unwrap_or_default();
    if options.is_empty() {
        eprintln!("vectors/option-messages.tsv is missing");
        std::process::exit(1);
    }
    let tsv = tsv + &options;
    {
        let loaded = loaded.clone();
        trials.push(Trial::test(
            "suite::every_file_loads_and_names_are_unique",
            move || match &loaded {
                Ok(_) => Ok(()),
                Err(e) => Err(Failed::from(e.join("\n"))),
            },
        ));
    }
    {
        let vectors = vectors.clone();
        trials.push(Trial::test(
            "suite::every_message_id_has_a_vector",
            move || {
                let ids = runner::message_ids(&tsv);
                if ids.is_empty() {
                    return Err("vectors/messages.tsv is missing or empty".into());
                }
                let missing = runner::uncovered(&ids, &vectors);
                if missing.is_empty() {
                    Ok(())
                } else {
                    Err(format!("ids with no vector: {missing:?}").into())
                }
            },
        ));
    }
    // A malformed expected_failures.txt is a failure of its own, never an
    // empty list (which would turn every listed vector into a failure
    // with the wrong reason, or hide the file's mistake).
    let expected = match runner::expected_failures(&dir) {
        Ok(e) => e,
        Err(why) => {
            trials.push(Trial::test(
                "suite::expected_failures_is_well_formed",
                move || Err(why.clone().into()),
            ));
            Default::default()
        }
    };
    {
        let listed: Vec<String> = expected.keys().cloned().collect();
        let names: std::collections::BTreeSet<String> =
            vectors.iter().map(|l| l.full_name.clone()).collect();
        trials.push(Trial::test(
            "suite::expected_failures_name_vectors",
            move || {
                let unknown: Vec<&String> = listed.iter().filter(|n| !names.contains(*n)).collect();
                if unknown.is_empty() {
                    Ok(())
                } else {
                    Err(format!("expected_failures.txt lists no such vector: {unknown:?}").into())
                }
            },
        ));
    }
    // One CA for all trials: key generation is the slow part of setup.
    let ca = std::sync::Arc::new(TestCa::new());
    for l in vectors {
        let ca = ca.clone();
        let reason = expected.get(&l.full_name).cloned();
        trials.push(Trial::test(format!("vector::{}", l.full_name), move || {
            let result = runner::run(&l.vector, &ca).and_then(|a| runner::compare(&l.vector, &a));
            match (result, reason) {
                (Ok(()), None) => Ok(()),
                (Ok(()), Some(_)) => Err("passed, but expected_failures.txt lists it".into()),
                (Err(_), Some(_)) => Ok(()),
                (Err(e), None) => Err(e.into()),
            }
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}
