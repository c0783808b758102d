//! Tree ensembles as plain data: the selection models, trained offline
//! (`bench/train/`) and compiled into the crate (`model_data`), evaluated
//! here without any runtime dependency. A model is a list of regression
//! trees; its score is the sum of the leaves its features reach.

/// One ensemble of regression trees.
pub struct Ensemble {
    /// The features a row holds, by name, in order: the trainer's
    /// columns (a test holds them to the rows `features` builds).
    pub names: &'static [&'static str],
    /// Tree nodes: (feature, threshold or leaf value, left, right); a
    /// feature of -1 marks a leaf. `x[feature] <= threshold` goes left.
    pub nodes: &'static [(i8, f64, u16, u16)],
    /// The first node of each tree.
    pub trees: &'static [u16],
}

/// Where the compiled models come from (`model_data::PROVENANCE`): read
/// by the tests and by people, never at run time.
#[cfg(test)]
pub struct Provenance {
    /// The script that wrote them.
    pub trainer: &'static str,
    /// The script's lines whose values decide the trees, as they stood.
    pub settings: &'static [&'static str],
    /// The LightGBM version that fitted them.
    pub lightgbm: &'static str,
    /// Each corpus trained on: name, reference file under `../shared/data`,
    /// pages, the first 16 hex digits of the file's SHA-256.
    pub corpora: &'static [(&'static str, &'static str, usize, &'static str)],
}

impl Ensemble {
    /// The raw score of one row (a log-odds for a classifier, a rank
    /// score for a ranker).
    pub fn score(&self, x: &[f64]) -> f64 {
        debug_assert_eq!(x.len(), self.names.len());
        // Trees are walked four at a time, a step of each in turn: the
        // four walks do not wait on one another, so the processor
        // overlaps their loads and comparisons. Leaves are added in tree
        // order, so the sum is the same to the last bit.
        let mut total = 0.0;
        let mut groups = self.trees.chunks_exact(LANES);
        for group in &mut groups {
            let mut at = [0usize; LANES];
            for (a, &root) in at.iter_mut().zip(group) {
                *a = usize::from(root);
            }
            loop {
                let mut moved = false;
                for a in &mut at {
                    let (f, t, l, r) = self.nodes[*a];
                    if f >= 0 {
                        let v = x.get(f as usize).copied().unwrap_or(0.0);
                        *a = usize::from(if v <= t { l } else { r });
                        moved = true;
                    }
                }
                if !moved {
                    break;
                }
            }
            for a in at {
                total += self.nodes[a].1;
            }
        }
        for &root in groups.remainder() {
            total += self.leaf(usize::from(root), x);
        }
        total
    }

    /// The leaf value one tree gives `x`, from its first node `i`.
    fn leaf(&self, mut i: usize, x: &[f64]) -> f64 {
        // Each step goes to a later node, so a tree ends in a leaf.
        loop {
            let (f, t, l, r) = self.nodes[i];
            if f < 0 {
                return t;
            }
            let v = x.get(f as usize).copied().unwrap_or(0.0);
            i = usize::from(if v <= t { l } else { r });
        }
    }
}

/// Trees walked side by side (see [`Ensemble::score`]).
const LANES: usize = 4;

/// The log-odds of a probability (for thresholds on classifier scores).
pub fn logit(p: f64) -> f64 {
    (p / (1.0 - p)).ln()
}
