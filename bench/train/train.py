#!/usr/bin/env python3
"""Trains extraction's three selection models and writes them, as plain
data, to core/src/extract/model_data.rs (see that file and
core/src/extract/select.rs for what each decides).

Run from the workspace root, in a virtualenv with bench/train/requirements.txt:

    python3 bench/train/train.py

It runs `cargo run --release -p webgate --example extract_training` twice
(the rows of units and pages depend on the root model, so the root model
is trained first and compiled in), labels every row against the reference
texts of ../shared/data (the WCXB development split and the
article-extraction benchmark), fits LightGBM trees, prints five-fold
cross-validated figures (folds by page, so no page is scored by a model
that saw it), and writes the file. Deterministic: one thread, fixed seeds.

    python3 bench/train/train.py --held-out

then also measures the whole pipeline on pages its models did not see
(`--held-out-only`: the same for the models as they are, without
training or writing them; `cargo xtask bench extract` runs it):
for each of the five folds, the three models are trained without that
fold's pages and compiled in, and the fold's pages are extracted by the
real code (`cargo bench --bench extract`, scores only); the five folds'
outputs are scored together by the reference scripts. The models of the
whole sets are written back at the end. (The units a fold's unit model
learns from are read under the root the whole-set ranker chose: a small
leak, the one shortcut.) In-sample figures include what the trees fit of
these very pages; this is the figure to compare with other extractors.

README.md beside this script says how to read the figures printed, and
lists what was tried, measured and not kept.
"""
import collections
import gzip
import json
import os
import re
import shutil
import subprocess
import sys

import lightgbm as lgb
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(ROOT, "..", "shared", "data")
OUT = os.path.join(ROOT, "target", "extract-training")
MODEL = os.path.join(ROOT, "core", "src", "extract", "model_data.rs")

PARAMS = dict(learning_rate=0.05, verbose=-1, n_jobs=1, deterministic=True, seed=7)
ROOT_TREES, PAGE_TREES, UNIT_TREES = 100, 150, 80
# The unit model scores every block of a page, the ranker every
# candidate: fewer, deeper trees at a larger step cross-validate as well
# as 200 trees of 8 leaves and cost fewer node visits.
UNIT_LEAVES, UNIT_STEP = 16, 0.075
ROOT_LEAVES, ROOT_STEP = 16, 0.1
ARTICLE, KEEP = 0.7, 0.4  # the thresholds of select.rs


def tokens(t):
    return re.findall(r"\w+", (t or "").lower())


def truths():
    out = {}
    with gzip.open(os.path.join(SHARED, "wcxb-dev", "ground-truth.jsonl.gz"), "rt", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            out[d["id"]] = d["main_content"]
    with open(os.path.join(SHARED, "article-extraction-benchmark", "ground-truth.json"), encoding="utf-8") as f:
        for k, v in json.load(f).items():
            out["n" + k] = v.get("articleBody", "")
    return out


def dump():
    subprocess.run(
        ["cargo", "run", "--release", "-q", "-p", "webgate", "--example", "extract_training", "--", OUT],
        cwd=ROOT, check=True)


def read(name, with_text):
    rows = []
    with open(os.path.join(OUT, name), encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            x = [float(v) for v in parts[2].split(",")]
            rows.append((parts[0], parts[1], x, parts[3] if with_text and len(parts) > 3 else ""))
    return rows


def word_f1(pred, ref):
    if not ref:
        return 1.0 if not pred else 0.0
    if not pred:
        return 0.0
    ov = sum((pred & ref).values())
    p, r = ov / sum(pred.values()), ov / sum(ref.values())
    return 2 * p * r / (p + r) if p + r else 0.0


def folds(ids):
    pages = sorted(set(ids))
    perm = np.random.RandomState(0).permutation(len(pages))
    fold = {pages[i]: k % 5 for k, i in enumerate(perm)}
    return np.array([fold[p] for p in ids])


def report(name, by_type):
    allv = [v for vs in by_type.values() for v in vs]
    print(f"{name}: overall {np.mean(allv):.3f}  " +
          "  ".join(f"{k} {np.mean(v):.3f}" for k, v in sorted(by_type.items())))


def grouped(pid):
    groups, last = [], None
    for p in pid:
        if p != last:
            groups.append(0)
            last = p
        groups[-1] += 1
    return groups


def fit_ranker(X, y, pid, trees):
    # News pages count twice: they are few, and their benchmark is strict.
    dup = np.array([p.startswith("n") for p in pid])
    X = np.concatenate([X, X[dup]])
    y = np.concatenate([y, y[dup]])
    pid = np.concatenate([pid, np.array(["dup" + p for p in pid[dup]])])
    order = np.argsort(pid, kind="stable")
    m = lgb.LGBMRanker(n_estimators=trees, num_leaves=ROOT_LEAVES, min_child_samples=20,
                       **dict(PARAMS, learning_rate=ROOT_STEP))
    m.fit(X[order], np.clip((y[order] * 10).astype(int), 0, 10), group=grouped(pid[order]))
    return m


def root_rows(truth):
    """Candidates: features, label (the F1 of the candidate's text), page, type."""
    rows = read("candidates.tsv", True)
    pid = np.array([r[0] for r in rows])
    ptype = np.array([r[1] for r in rows])
    X = np.array([r[2] for r in rows])
    bags = {p: collections.Counter(tokens(t)) for p, t in truth.items()}
    y = np.array([word_f1(collections.Counter(tokens(r[3])), bags[r[0]]) for r in rows])
    return X, y, pid, ptype


def train_root(truth):
    X, y, pid, ptype = root_rows(truth)
    fo = folds(pid)
    pred = np.zeros(len(y))
    for k in range(5):
        m = fit_ranker(X[fo != k], y[fo != k], pid[fo != k], ROOT_TREES)
        pred[fo == k] = m.predict(X[fo == k])
    by, oracle = collections.defaultdict(list), collections.defaultdict(list)
    for p in sorted(set(pid)):
        idx = np.where(pid == p)[0]
        by[ptype[idx[0]]].append(y[idx[np.argmax(pred[idx])]])
        oracle[ptype[idx[0]]].append(y[idx].max())
    report("root, best candidate (raw text)", oracle)
    report("root, cross-validated choice (raw text)", by)
    return fit_ranker(X, y, pid, ROOT_TREES), X


def page_rows():
    """Pages: features, label (an article or not), page."""
    rows = read("pages.tsv", False)
    ptype = np.array([r[1] for r in rows])
    X = np.array([r[2] for r in rows])
    y = np.isin(ptype, ["article", "news"]).astype(int)
    return X, y, np.array([r[0] for r in rows]), ptype


def make_page():
    return lgb.LGBMClassifier(n_estimators=PAGE_TREES, num_leaves=8, min_child_samples=20, **PARAMS)


def train_page():
    X, y, pid, ptype = page_rows()
    fo = folds(pid)
    prob = np.zeros(len(y))
    for k in range(5):
        m = make_page().fit(X[fo != k], y[fo != k])
        prob[fo == k] = m.predict_proba(X[fo == k])[:, 1]
    called = prob >= ARTICLE
    print(f"page type, cross-validated: {np.mean(called == y.astype(bool)):.3f} right; called article: " +
          "  ".join(f"{t} {np.mean(called[ptype == t]):.2f}" for t in sorted(set(ptype))))
    return make_page().fit(X, y), X, dict(zip(pid, prob))


def grams(t, n=3):
    return set(tuple(t[i:i + n]) for i in range(max(1, len(t) - n + 1)))


def unit_rows(truth):
    """Units: features, label (content or not), weight, page, type, words."""
    rows = read("units.tsv", True)
    pid = np.array([r[0] for r in rows])
    ptype = np.array([r[1] for r in rows])
    X = np.array([r[2] for r in rows])
    toks = [tokens(r[3]) for r in rows]
    tg = {p: grams(tokens(t)) for p, t in truth.items()}
    tn = {p: " " + " ".join(tokens(t)) + " " for p, t in truth.items()}

    # A unit belongs to the content when its word triples (or, under
    # three words, its words in a row) are in the reference text.
    def label(t, p):
        if not t:
            return 0.0
        if len(t) < 3:
            return float(" " + " ".join(t) + " " in tn[p])
        g = grams(t)
        return sum(1 for x in g if x in tg[p]) / len(g)

    y = np.array([label(t, p) for t, p in zip(toks, pid)]) >= 0.5
    # A unit whose words an earlier unit of the page already had is
    # content only while the reference repeats them that often: the
    # word triples above cannot tell a quoted post or a cloned slide
    # from the first copy.
    times = collections.Counter()
    for i, (t, p) in enumerate(zip(toks, pid)):
        if len(t) < 3:
            continue
        key = (p, " ".join(t))
        times[key] += 1
        if times[key] > 1:
            y[i] = tn[p].count(" " + key[1] + " ") >= times[key]
    w = np.log1p([max(1, len(t)) for t in toks]) * np.where(ptype == "news", 3.0, 1.0)
    return X, y, w, pid, ptype, toks


def make_unit():
    return lgb.LGBMClassifier(n_estimators=UNIT_TREES, num_leaves=UNIT_LEAVES, min_child_samples=40,
                              **dict(PARAMS, learning_rate=UNIT_STEP))


def train_unit(truth, page_prob):
    X, y, w, pid, ptype, toks = unit_rows(truth)
    # A page declaring itself an article twice (JSON-LD, og:type) takes
    # the article rules whatever the classifier says (select.rs).
    Xp, _, pp, _ = page_rows()
    declares = {p: x[0] == 1.0 and x[8] == 1.0 for p, x in zip(pp, Xp)}
    fo = folds(pid)
    prob = np.zeros(len(y))
    for k in range(5):
        m = make_unit().fit(X[fo != k], y[fo != k], sample_weight=w[fo != k])
        prob[fo == k] = m.predict_proba(X[fo == k])[:, 1]
    bags = {p: collections.Counter(tokens(t)) for p, t in truth.items()}
    idx = collections.defaultdict(list)
    for i, p in enumerate(pid):
        idx[p].append(i)
    types = {p: t for p, t in zip(pid, ptype)}
    for name, keep in [
        ("every unit of the root", np.ones(len(y), bool)),
        ("units the reference holds", y),
        ("cross-validated pruning (articles by the article rules)", None),
    ]:
        by = collections.defaultdict(list)
        for p in sorted(idx):
            article = page_prob.get(p, 0.0) >= ARTICLE or declares.get(p, False)
            c = collections.Counter()
            for i in idx[p]:
                kept = (X[i, 0] < 0.5 if article else prob[i] >= KEEP) if keep is None else keep[i]
                if kept:
                    c.update(toks[i])
            by[types[p]].append(word_f1(c, bags[p]))
        report(name, by)
    return make_unit().fit(X, y, sample_weight=w), X


def trees_of(model):
    nodes, roots = [], []

    def walk(t):
        i = len(nodes)
        nodes.append(None)
        if "leaf_value" in t:
            nodes[i] = (-1, t["leaf_value"], 0, 0)
        else:
            assert t["decision_type"] == "<="
            left, right = walk(t["left_child"]), walk(t["right_child"])
            nodes[i] = (t["split_feature"], t["threshold"], left, right)
        return i

    for tree in model.booster_.dump_model()["tree_info"]:
        roots.append(walk(tree["tree_structure"]))
    return nodes, roots


def ensemble(name, model, features, doc):
    nodes, roots = trees_of(model) if model is not None else ([], [])
    out = [f"/// {doc}\npub static {name}: Ensemble = Ensemble {{\n    features: {features},\n    nodes: &[\n"]
    out += [f"        ({f}, {float(t)!r}, {l}, {r}),\n" for f, t, l, r in nodes]
    out.append("    ],\n    trees: &[\n")
    for i in range(0, len(roots), 12):
        out.append("        " + ", ".join(str(r) for r in roots[i:i + 12]) + ",\n")
    out.append("    ],\n};\n\n")
    return "".join(out)


def write(models):
    parts = [
        "//! The selection models of extraction (see `select`), as plain data:\n"
        "//! LightGBM regression trees written by `bench/train/train.py` from the\n"
        "//! WCXB development split and the article-extraction benchmark.\n"
        "//! Generated: do not edit by hand; run the trainer again.\n\n"
        "// Numbers are the trainer's, as it wrote them.\n"
        "#![allow(clippy::approx_constant, clippy::excessive_precision)]\n\n"
        "use super::model::Ensemble;\n\n"
    ]
    checks = []
    for name, model, X, doc in models:
        parts.append(ensemble(name, model, X.shape[1], doc))
        if model is None:
            continue
        raw = model.predict(X[:3], raw_score=True) if hasattr(model, "predict_proba") else model.predict(X[:3])
        for x, v in zip(X[:3], raw):
            checks.append((name.lower(), x, v))
    parts.append("/// Rows and the scores the trainer computed for them (a test holds the\n"
                 "/// compiled trees to them).\n#[cfg(test)]\npub const CHECKS: &[(&str, &[f64], f64)] = &[\n")
    for name, x, v in checks:
        parts.append(f"    (\"{name}\", &[{', '.join(repr(float(a)) for a in x)}], {float(v)!r}),\n")
    parts.append("];\n")
    with open(MODEL, "w", encoding="utf-8") as f:
        f.write("".join(parts))
    subprocess.run(["rustfmt", "--edition", "2021", MODEL], check=True)


def held_out(truth):
    """The whole pipeline on the pages its models did not see (see the
    module's doc); returns the reference scripts' reports."""
    Xr, yr, pr, _ = root_rows(truth)
    Xp, yp, pp, _ = page_rows()
    Xu, yu, wu, pu, _, _ = unit_rows(truth)
    fold = dict(zip(pp, folds(pp)))
    fr, fp, fu = (np.array([fold[p] for p in ids]) for ids in (pr, pp, pu))
    out = os.path.join(ROOT, "target", "held-out")
    os.makedirs(out, exist_ok=True)
    # The models and the benchmark's own prediction files are put back
    # however the run ends.
    saved = [(MODEL, os.path.join(out, "model_data.rs"))] + [
        (os.path.join(ROOT, "target", name), os.path.join(out, "saved-" + name))
        for name in ("wcxb-predictions.jsonl", "extract-predictions.json")]
    saved = [(a, b) for a, b in saved if os.path.isfile(a)]
    for a, b in saved:
        shutil.copyfile(a, b)
    wcxb, news = {}, {}
    try:
        for k in range(5):
            write([
                ("ROOT", fit_ranker(Xr[fr != k], yr[fr != k], pr[fr != k], ROOT_TREES), Xr, "A fold's ranker."),
                ("PAGE", make_page().fit(Xp[fp != k], yp[fp != k]), Xp, "A fold's page model."),
                ("UNIT", make_unit().fit(Xu[fu != k], yu[fu != k], sample_weight=wu[fu != k]), Xu,
                 "A fold's unit model."),
            ])
            subprocess.run(["cargo", "bench", "-q", "-p", "webgate", "--bench", "extract"], cwd=ROOT, check=True,
                           stdout=subprocess.DEVNULL, env=dict(os.environ, WEBGATE_EXTRACT_QUALITY_ONLY="1"))
            with open(os.path.join(ROOT, "target", "wcxb-predictions.jsonl"), encoding="utf-8") as f:
                for line in f:
                    pid = json.loads(line)["id"]
                    if fold.get(pid) == k:
                        wcxb[pid] = line
            with open(os.path.join(ROOT, "target", "extract-predictions.json"), encoding="utf-8") as f:
                for pid, v in json.load(f).items():
                    if fold.get("n" + pid) == k:
                        news[pid] = v
            print(f"held out: fold {k + 1} of 5 extracted", flush=True)
    finally:
        for a, b in saved:
            shutil.copyfile(b, a)
    wcxb_pred, news_pred = os.path.join(out, "wcxb-predictions.jsonl"), os.path.join(out, "news-predictions.json")
    with open(wcxb_pred, "w", encoding="utf-8") as f:
        f.write("".join(wcxb[i] for i in sorted(wcxb)))
    with open(news_pred, "w", encoding="utf-8") as f:
        json.dump(news, f)
    tools = os.path.join(ROOT, "..", "shared", "tools")
    return [subprocess.run([sys.executable, os.path.join(tools, script), *args], check=True,
                           capture_output=True, text=True).stdout
            for script, args in [
                ("score_extraction.py", [os.path.join(SHARED, "article-extraction-benchmark", "ground-truth.json"),
                                         news_pred]),
                ("score_wcxb.py", [os.path.join(SHARED, "wcxb-dev"), "--predictions", wcxb_pred]),
            ]]


def print_held_out(truth):
    for text in held_out(truth):
        print("held out: " + text.rstrip().replace("\n", "\nheld out: "))


def main():
    truth = truths()
    if "--held-out-only" in sys.argv[1:]:
        dump()
        print_held_out(truth)
        return
    dump()
    root, Xr = train_root(truth)
    # The units and pages of the new root: compile it in (the other two
    # empty for now: they do not change those rows), dump again.
    # The placeholders take their widths from the dump's feature names
    # (a line each: candidates, units, pages).
    with open(os.path.join(OUT, "features.txt"), encoding="utf-8") as f:
        widths = [len(line.split(",")) for line in f.read().splitlines()]
    write([
        ("ROOT", root, Xr, "Ranks candidate roots."),
        ("PAGE", None, np.zeros((1, widths[2])), "Not trained yet."),
        ("UNIT", None, np.zeros((1, widths[1])), "Not trained yet."),
    ])
    dump()
    page, Xp, page_prob = train_page()
    unit, Xu = train_unit(truth, page_prob)
    write([
        ("ROOT", root, Xr, "Ranks candidate roots (features: `features::candidates`)."),
        ("PAGE", page, Xp, "Log-odds that a page is an article (features: `features::page`)."),
        ("UNIT", unit, Xu, "Log-odds that a unit is content (features: `features::units`)."),
    ])
    print(f"wrote {MODEL}")
    if "--held-out" in sys.argv[1:]:
        print_held_out(truth)


if __name__ == "__main__":
    sys.exit(main())
