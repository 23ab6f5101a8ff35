//! The output of a vector generator (`crates/engine-*/examples/*_vectors.rs`): the family's
//! `valid` and `invalid` directories of `tests/vectors/<family>`, emptied first; one
//! pretty-printed JSON file a vector (`generator`, `description`, `inputs`, `expected`); and the
//! family's entry in the shared `counts.json` next to them, with which every runner checks it
//! read every file.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
};

use lightprov_types::{ErrorCode, Family, family::Tamper};
use serde_json::{Value, json};

/// Where a generator writes, and how many vectors of each kind it wrote.
#[derive(Debug)]
pub struct VectorDir {
    dir: PathBuf,
    family: &'static Family,
    generator: &'static str,
    valid: usize,
    invalid: usize,
    /// The tamper classes checked by [`Self::tamper_code`].
    tampers: BTreeSet<&'static str>,
}

impl VectorDir {
    /// The directory named by the program's first argument (`tests/vectors/<family>` without
    /// one), its `valid` and `invalid` directories emptied. Each vector names `generator` (the
    /// generator's path in the repository) as where it comes from.
    pub fn from_args(family: &'static Family, generator: &'static str) -> Self {
        let dir = std::env::args().nth(1).map_or_else(
            || Path::new("tests/vectors").join(family.name),
            PathBuf::from,
        );
        for kind in ["valid", "invalid"] {
            let d = dir.join(kind);
            if d.exists() {
                std::fs::remove_dir_all(&d)
                    .unwrap_or_else(|e| panic!("emptying {}: {e}", d.display()));
            }
            std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("creating {}: {e}", d.display()));
        }
        Self {
            dir,
            family,
            generator,
            valid: 0,
            invalid: 0,
            tampers: BTreeSet::new(),
        }
    }

    /// The family's directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Writes the vector `<kind>/<name>.json`, `kind` being `valid` or `invalid`.
    pub fn write(
        &mut self,
        valid: bool,
        name: &str,
        description: &str,
        inputs: Value,
        expected: Value,
    ) {
        let v = json!({
            "generator": self.generator,
            "description": description,
            "inputs": inputs,
            "expected": expected,
        });
        let kind = if valid { "valid" } else { "invalid" };
        let path = self.dir.join(kind).join(format!("{name}.json"));
        let text = serde_json::to_string_pretty(&v).expect("a JSON value prints") + "\n";
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        if valid {
            self.valid += 1;
        } else {
            self.invalid += 1;
        }
    }

    /// A valid vector described by its name.
    pub fn valid(&mut self, name: &str, inputs: Value, expected: Value) {
        self.write(true, name, name, inputs, expected);
    }

    /// An invalid vector described by its name, rejected with `code`.
    pub fn invalid(&mut self, name: &str, inputs: Value, code: ErrorCode) {
        self.write(false, name, name, inputs, json!({ "error": code.as_str() }));
    }

    /// The tamper class `tamper`, and the code the verifier answered its forgery `name` with;
    /// panics unless `got` is a rejection the class answers (its code, or its alternative).
    pub fn tamper_code<T: std::fmt::Debug>(
        &mut self,
        tamper: &str,
        name: &str,
        got: Result<T, ErrorCode>,
    ) -> (&'static Tamper, ErrorCode) {
        let family = self.family;
        let class = family
            .tamper(tamper)
            .unwrap_or_else(|| panic!("{tamper} is no tamper class of {}", family.name));
        match got {
            Err(code) if class.answers(code) => {
                self.tampers.insert(class.name);
                (class, code)
            }
            other => panic!(
                "{name}: expected {}, the verifier gives {other:?}",
                class.code
            ),
        }
    }

    /// Panics unless every tamper class of the family was checked by [`Self::tamper_code`].
    pub fn assert_every_tamper(&self) {
        for t in self.family.tampers {
            assert!(
                self.tampers.contains(t.name),
                "no vector of tamper class {}",
                t.name
            );
        }
    }

    /// Sets the family's counts in `counts.json` next to its directory (when there is one: a
    /// generator run into a scratch directory has none) and says what was written.
    pub fn finish(self) {
        let counts_path = self.dir.join("..").join("counts.json");
        if let Ok(text) = std::fs::read_to_string(&counts_path) {
            let mut counts: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: {e}", counts_path.display()));
            counts[self.family.name] = json!({ "valid": self.valid, "invalid": self.invalid });
            let text = serde_json::to_string_pretty(&counts).expect("a JSON value prints") + "\n";
            std::fs::write(&counts_path, text)
                .unwrap_or_else(|e| panic!("writing {}: {e}", counts_path.display()));
        }
        println!(
            "{} valid and {} invalid {} vectors written to {}",
            self.valid,
            self.invalid,
            self.family.name,
            self.dir.display()
        );
    }
}
