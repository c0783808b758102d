//! Tree ensembles as plain data: the selection models, trained offline
//! (`bench/train/`) and compiled into the crate (`model_data`), evaluated
//! here without any runtime dependency. A model is a list of regression
//! trees; its score is the sum of the leaves its features reach.

/// One ensemble of regression trees.
pub struct Ensemble {
    /// How many features a row has.
    pub features: usize,
    /// Tree nodes: (feature, threshold or leaf value, left, right); a
    /// feature of -1 marks a leaf. `x[feature] <= threshold` goes left.
    pub nodes: &'static [(i8, f64, u16, u16)],
    /// The first node of each tree.
    pub trees: &'static [u16],
}

impl Ensemble {
    /// The raw score of one row (a log-odds for a classifier, a rank
    /// score for a ranker).
    pub fn score(&self, x: &[f64]) -> f64 {
        debug_assert_eq!(x.len(), self.features);
        let mut total = 0.0;
        for &root in self.trees {
            let mut i = usize::from(root);
            // Each step goes to a later node, so a tree ends in a leaf.
            loop {
                let (f, t, l, r) = self.nodes[i];
                if f < 0 {
                    total += t;
                    break;
                }
                let v = x.get(f as usize).copied().unwrap_or(0.0);
                i = if v <= t {
                    usize::from(l)
                } else {
                    usize::from(r)
                };
            }
        }
        total
    }
}

/// The log-odds of a probability (for thresholds on classifier scores).
pub fn logit(p: f64) -> f64 {
    (p / (1.0 - p)).ln()
}

#[cfg(test)]
mod tests {
    use super::super::model_data::{CHECKS, PAGE, ROOT, UNIT};

    /// The compiled trees give the scores the trainer computed for the
    /// same rows (a row each of the training data, written beside the
    /// trees by `bench/train/train.py`).
    #[test]
    fn compiled_trees_agree_with_the_trainer() {
        for (model, x, want) in CHECKS {
            let m = match *model {
                "root" => &ROOT,
                "unit" => &UNIT,
                _ => &PAGE,
            };
            let got = m.score(x);
            assert!((got - want).abs() < 1e-4, "{model}: {got} against {want}");
        }
    }
}
