"""Times trafilatura and readability-lxml on the extraction benchmark's pages.

Single thread, best of three rounds, one JSON line per peer. Run by
`cargo xtask bench extract` inside a virtualenv it prepares.

With `--wcxb DATA_DIR OUT.jsonl`: trafilatura alone over the WCXB
development split, one round (with each page's URL), its predictions
written as JSON lines for `score_wcxb.py --predictions`, and one JSON line
with its time per page. With `--corpus DATA_DIR OUT_DIR`: trafilatura (its
defaults, and without comments) and readability-lxml over a corpus in
WCXB's shape (web-classics), one predictions file each.
"""
import glob
import gzip
import json
import os
import sys
import time


def pages(directory):
    out = []
    for p in sorted(glob.glob(os.path.join(directory, "*.html.gz"))):
        with gzip.open(p, "rb") as f:
            out.append(f.read().decode("utf-8", errors="replace"))
    return out


def best_of(rounds, fn, htmls):
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        for h in htmls:
            fn(h)
        best = min(best, time.perf_counter() - t)
    return best


def wcxb(directory, out):
    import trafilatura
    rows = []
    with gzip.open(os.path.join(directory, "ground-truth.jsonl.gz"), "rt", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            with gzip.open(os.path.join(directory, "html", d["id"] + ".html.gz"), "rb") as h:
                rows.append((d["id"], d.get("url") or None, h.read().decode("utf-8", errors="replace")))
    t = time.perf_counter()
    texts = [trafilatura.extract(html, url=url) or "" for _, url, html in rows]
    secs = time.perf_counter() - t
    with open(out, "w", encoding="utf-8") as f:
        for (i, _, _), text in zip(rows, texts):
            f.write(json.dumps({"id": i, "text": text}) + "\n")
    print(json.dumps({"peer": "trafilatura %s" % trafilatura.__version__, "set": "wcxb",
                      "ms_per_page": round(secs * 1e3 / len(rows), 3), "pages": len(rows)}), flush=True)


def corpus(directory, out_dir):
    """Every page of a corpus in WCXB's shape through trafilatura (its
    defaults, and without comments) and readability-lxml: one predictions
    file per peer in `out_dir`, and one JSON line per peer with its time."""
    import trafilatura
    import lxml.html
    from readability import Document
    rows = []
    with gzip.open(os.path.join(directory, "ground-truth.jsonl.gz"), "rt", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            with gzip.open(os.path.join(directory, "html", d["id"] + ".html.gz"), "rb") as h:
                rows.append((d["id"], d.get("url") or None, h.read().decode("utf-8", errors="replace")))

    def rlxml(html, url):
        try:
            return lxml.html.fromstring(Document(html).summary()).text_content()
        except Exception:
            return ""

    os.makedirs(out_dir, exist_ok=True)
    for name, fn in [
        ("trafilatura", lambda h, u: trafilatura.extract(h, url=u) or ""),
        ("trafilatura-no-comments", lambda h, u: trafilatura.extract(h, url=u, include_comments=False) or ""),
        ("readability-lxml", rlxml),
    ]:
        t = time.perf_counter()
        texts = [fn(html, url) for _, url, html in rows]
        secs = time.perf_counter() - t
        with open(os.path.join(out_dir, name + ".jsonl"), "w", encoding="utf-8") as f:
            for (i, _, _), text in zip(rows, texts):
                f.write(json.dumps({"id": i, "text": text}) + "\n")
        print(json.dumps({"peer": name, "set": os.path.basename(directory.rstrip("/")),
                          "ms_per_page": round(secs * 1e3 / len(rows), 3), "pages": len(rows)}), flush=True)


def main():
    if sys.argv[1] == "--wcxb":
        return wcxb(sys.argv[2], sys.argv[3])
    if sys.argv[1] == "--corpus":
        return corpus(sys.argv[2], sys.argv[3])
    htmls = pages(sys.argv[1])
    import trafilatura
    import lxml.html
    from readability import Document

    def traf(h):
        return trafilatura.extract(h)

    def rlxml(h):
        try:
            summary = Document(h).summary()
            return lxml.html.fromstring(summary).text_content()
        except Exception:
            return ""

    for name, fn in [
        ("trafilatura %s" % trafilatura.__version__, traf),
        ("readability-lxml", rlxml),
    ]:
        secs = best_of(3, fn, htmls)
        print(json.dumps({"peer": name, "ms_per_page": round(secs * 1e3 / len(htmls), 3), "pages": len(htmls)}), flush=True)


if __name__ == "__main__":
    main()
