#!/usr/bin/env python3
"""Peak heap of one fetch-benchmark load, by part.

The fetch benchmark's `--memory WIDTH SIDE` mode runs one load in a fresh
process; run it under heaptrack, fold the stacks at the heap's peak, and
sum them here by the part of the fetch that allocated:

    B=$(ls -t target/release/deps/fetch-* | grep -v '\\.d$' | head -1)
    heaptrack -o /tmp/ours $B --memory 64 ours-fresh
    heaptrack_print -f /tmp/ours.zst --flamegraph-cost-type peak -F /tmp/ours.folded
    python3 bench/heap/parts.py /tmp/ours.folded 64

The second argument is the width (fetches in flight): each part is also
shown a fetch. A stack belongs to the first part whose pattern it holds,
in the order below; the server's allocations (the loopback server runs in
the same process, for both sides alike) are shown apart, not per fetch.
"""

import collections
import re
import sys

# (part, pattern the stack holds, pattern it must not hold), first match
# wins. Names appear both as `a::b` and, in legacy-mangled frames, as
# `a..b`. A spawned task's cell is allocated where it is spawned: the
# benchmark spawns each fetch (its future), webgate spawns an h2
# connection's task, the pool its reaper.
SEP = r"(::|\.\.)"
PARTS = [
    ("server (loopback, both sides alike)",
     rf"loopback|rustls{SEP}server|ServerConnection|h2{SEP}server", None),
    ("set-up (test CA, runtime)",
     rf"rcgen|TestCa|_dl_init|stack_overflow|runtime{SEP}builder{SEP}Builder{SEP}build", None),
    ("a reqwest client (its build)", rf"ClientBuilder{SEP}build", None),
    ("the fetch's own future (its task)", r"bind_new_task", rf"webgate{SEP}net|hyper|pool"),
    ("connection task", r"bind_new_task", None),
    ("Happy Eyeballs", r"eyeballs", None),
    ("TLS state and buffers", rf"rustls|ring{SEP}", None),
    ("hyper HTTP/1.1 read and write buffers", rf"hyper{SEP}proto{SEP}h1", None),
    ("h2 (and the gate in front of it)", rf"(^|;|[^a-z_])h2{SEP}|proto{SEP}h2|GatedIo", None),
    ("hyper dispatch (channels)", r"hyper", None),
    ("body decoder", rf"webgate{SEP}body", None),
    ("result text", rf"webgate{SEP}(fetch{SEP}read|text|messages)", None),
    ("audit record", rf"webgate{SEP}audit", None),
    ("resolve", r"Resolve|hickory", None),
    ("reqwest, other", r"reqwest", None),
    ("webgate, other", r"webgate", None),
    ("tokio (timers, I/O registration)", r"tokio", None),
]


def part_of(stack: str) -> str:
    # The benchmark boxes each fetch's future where it starts it (in the
    # runtime's `block_on`): an allocation made right there is the future.
    frames = [f for f in stack.split(";") if f]
    while frames and "alloc" in frames[-1].lower():
        frames.pop()
    if frames and "block_on" in frames[-1]:
        return "the fetch's own future (its task)"
    # webgate boxes the step that connects (and hyper's handshake in it)
    # where the exchange starts it.
    if frames and "exchange" in frames[-1] and "webgate" in stack:
        return "connecting (its boxed step)"
    if frames and "fetch_into" in frames[-1]:
        return "the fetch's record (its hops)"
    for part, holds, lacks in PARTS:
        if re.search(holds, stack) and not (lacks and re.search(lacks, stack)):
            return part
    return "other"


def main() -> None:
    path = sys.argv[1]
    width = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    total = collections.Counter()
    for line in open(path, encoding="utf-8", errors="replace"):
        stack, _, n = line.rstrip().rpartition(" ")
        if not n.isdigit() or int(n) == 0:
            continue
        part = part_of(stack)
        total[part] += int(n)
    shown = 0
    for part, n in total.most_common():
        per = "" if part.startswith("server") else f"{n / 1024 / width:8.1f} KiB a fetch"
        print(f"{n / 1024:9.0f} KiB {per:>20}  {part}")
        if not part.startswith("server"):
            shown += n
    print(f"{shown / 1024:9.0f} KiB {shown / 1024 / width:8.1f} KiB a fetch  all but the server")


if __name__ == "__main__":
    main()
