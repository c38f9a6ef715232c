#!/usr/bin/env python3
"""arcport batch commands on Apache Spark (docs/batch.md#spark).

Spark distributes only the shard numbers: every task runs one arcport
binary over its share of the list (``--inputs LIST --shard-index I
--shard-count K --emit jsonl``), and arcport reads and writes s3:// itself
(lib/store), so no Hadoop S3 connector is needed. The ``--emit jsonl`` lines
of all tasks are collected as a DataFrame.

    spark-submit arcport_spark.py run --list s3://coll/lists/arcs.txt --shard-count 50 -- \\
        arc2warc -o 's3://coll/warc/{stem}.warc.gz' --skip-existing
    spark-submit arcport_spark.py zipnum --list warcs.txt --plan --run-tasks 50 \\
        --runs s3://coll/runs/ --cluster s3://coll/cluster/ --shards 16
    spark-submit arcport_spark.py jobs jobs.json      # several jobs, one Spark session

Modelled on cc-pyspark's sparkcc: one partition per task
(``mapPartitionsWithIndex``), speculation off (a task never runs twice at
once; arcport's outputs are whole-or-absent and the same bytes on a rerun, so
a retried task is safe), exit 75 raised so Spark retries the task, exit 65
(bad input) kept as rows with status "bad", never retried.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Optional, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame, SparkSession

EXIT_BAD_INPUT = 65  # the input is bad: the same input fails the same way, not retried
EXIT_TRANSIENT = 75  # storage failed: the task is retried

# CRASH_ENV is a test hook: "JOB:PARTITION[,...]" makes the Python worker running
# that partition of that job die (os._exit, its arcport child SIGKILLed) on
# the task's first attempt, once arcport has reported its first input, as a
# worker lost mid-task would. spark.task.maxFailures >= 2 retries it.
CRASH_ENV = "ARCPORT_SPARK_TEST_CRASH"

# The columns of a result row: the --emit jsonl fields, then where it ran.
RESULT_FIELDS: tuple[tuple[str, str], ...] = (
    ("input", "string"),
    ("output", "string"),
    ("status", "string"),
    ("records", "long"),
    ("bytes", "long"),
    ("sha256", "string"),
    ("seconds", "double"),
    ("error", "string"),
    ("job", "string"),
    ("shard", "int"),
    ("attempt", "int"),
    ("exit", "int"),
)


class TaskFailed(RuntimeError):
    """An arcport task exited with a status worth retrying (or unknown)."""


@dataclass(frozen=True)
class BatchJob:
    """One arcport batch command over a list, cut into shard_count tasks.

    argv is the command and its own flags without the batch ones, e.g.
    ["arc2warc", "-o", "s3://coll/warc/{stem}.warc.gz", "--skip-existing"].
    inputs is what each task gets as --inputs: "-" when list_text (a list or
    a plan read on the driver) is fed on standard input, else a path or URL
    that every executor can read (s3://...).
    """

    name: str
    argv: tuple[str, ...]
    inputs: str
    shard_count: int
    list_text: Optional[str] = None
    bin_dir: Optional[str] = None
    via: str = "python"

    def command(self, shard: int) -> list[str]:
        """The command line of task shard."""
        return [
            binary(self.argv[0], self.bin_dir),
            *self.argv[1:],
            "--inputs",
            self.inputs,
            "--shard-index",
            str(shard),
            "--shard-count",
            str(self.shard_count),
            "--emit",
            "jsonl",
        ]

    def pipe_command(self) -> list[str]:
        """The command line every task of the JVM path runs (PIPE_SCRIPT
        under sh: the shard index is the first line of its standard input)."""
        return [
            "sh",
            "-c",
            PIPE_SCRIPT,
            binary(self.argv[0], self.bin_dir),
            *self.argv[1:],
            "--inputs",
            self.inputs,
            "--shard-count",
            str(self.shard_count),
            "--emit",
            "jsonl",
        ]

    def pipe_input(self, shard: int) -> str:
        """What task shard of the JVM path gets on standard input: its index,
        then the list when it is fed from the driver."""
        if self.list_text is None:
            return str(shard)
        return str(shard) + "\n" + self.list_text.rstrip("\n")


@dataclass
class JobResult:
    """What a job did: its rows and the counts by status."""

    name: str
    rows: list[dict[str, Any]]
    seconds: float
    counts: dict[str, int] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        return {"job": self.name, "inputs": len(self.rows), "seconds": round(self.seconds, 3), **self.counts}


# PIPE_SCRIPT runs one task of the JVM path (via="pipe"): Spark's PipedRDD
# writes the partition's one element (the shard index, and the list when it
# is fed from the driver) to the standard input of `sh -c PIPE_SCRIPT BIN
# ARGS...`; sh reads the index line (read takes one byte at a time from a
# pipe, so arcport gets the rest), runs arcport, and ends the output with a
# line giving the shard and the exit status. 0 and 65 (bad inputs, in the
# rows) end the task well; any other status fails it (PipedRDD raises), and
# Spark retries it. The test hook: when $ARCPORT_SPARK_TEST_CRASH names
# JOB:SHARD ($ARCPORT_SPARK_JOB) and the marker file
# $ARCPORT_SPARK_TEST_MARK.JOB.SHARD does not exist yet, arcport writes its
# lines there and is SIGKILLed once it has reported its first input, and
# the task fails (137) after passing that line on, as a task whose
# process was killed would.
PIPE_SCRIPT = r"""read -r i || exit 1
case ",${ARCPORT_SPARK_TEST_CRASH:-}," in
*",$ARCPORT_SPARK_JOB:$i,"*)
  m="${ARCPORT_SPARK_TEST_MARK:-/tmp/arcport-spark-crash}.$ARCPORT_SPARK_JOB.$i"
  if [ ! -e "$m" ]; then
    exec 3<&0
    "$0" "$@" --shard-index "$i" <&3 > "$m" &
    p=$!
    while [ ! -s "$m" ] && kill -0 $p 2>/dev/null; do sleep 0.05; done
    kill -9 $p 2>/dev/null
    head -n 1 "$m"
    exit 137
  fi ;;
esac
"$0" "$@" --shard-index "$i"
s=$?
case $s in 0|65) printf '{"arcport_shard":%d,"arcport_exit":%d}\n' "$i" "$s"; exit 0 ;; esac
exit $s
"""


def binary(name: str, bin_dir: Optional[str]) -> str:
    """The path of arcport binary name: in bin_dir, else on PATH."""
    if bin_dir:
        return os.path.join(bin_dir, name)
    found = shutil.which(name)
    if found is None:
        raise TaskFailed(f"{name}: not on PATH (give --bin-dir)")
    return found


def is_remote(name: str) -> bool:
    return name.startswith(("s3://", "http://", "https://"))


def read_list(name: str) -> Optional[str]:
    """The text of a local list, or None for one the tasks read themselves."""
    if name == "-":
        return sys.stdin.read()
    if is_remote(name):
        return None
    with open(name, encoding="utf-8") as f:
        return f.read()


def plan(list_name: str, shard_count: int, bin_dir: Optional[str]) -> str:
    """`waczpack plan` on the driver: the inputs balanced by size, ETags pinned."""
    cmd = [binary("waczpack", bin_dir), "plan", "--inputs", list_name, "--shard-count", str(shard_count)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise TaskFailed(f"waczpack plan: exit {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def make_job(
    name: str,
    argv: Sequence[str],
    list_name: str,
    shard_count: int,
    bin_dir: Optional[str],
    use_plan: bool = False,
    via: str = "python",
) -> BatchJob:
    """A BatchJob over list_name: a local list is read here and fed to the
    tasks, a remote one is read by each task; use_plan balances it first.
    via is how tasks run: "python" (a Python worker per task runs arcport)
    or "pipe" (the JVM runs it: Spark's PipedRDD, no Python worker)."""
    if shard_count < 1:
        raise ValueError("shard count must be at least 1")
    if via not in VIAS:
        raise ValueError(f"via {via!r}: want one of {', '.join(VIAS)}")
    if use_plan:
        return BatchJob(name, tuple(argv), "-", shard_count, plan(list_name, shard_count, bin_dir), bin_dir, via)
    text = read_list(list_name)
    return BatchJob(name, tuple(argv), "-" if text is not None else list_name, shard_count, text, bin_dir, via)


VIAS = ("python", "pipe")


def parse_rows(lines: Iterable[str], job: str, shard: int, attempt: int, status: int) -> Iterator[dict[str, Any]]:
    """The --emit jsonl lines as rows of RESULT_FIELDS."""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        obj = json.loads(line)
        row: dict[str, Any] = {k: obj.get(k) for k, _ in RESULT_FIELDS[:8]}
        row.update(job=job, shard=shard, attempt=attempt, exit=status)
        yield row


def crash_here(job: str, shard: int, attempt: int) -> bool:
    want = os.environ.get(CRASH_ENV, "").split(",")
    return attempt == 0 and f"{job}:{shard}" in want


def run_task(job: BatchJob, shard: int, attempt: int = 0) -> list[dict[str, Any]]:
    """Runs task shard of job and returns its rows. Exit 0 and 65 (bad
    inputs, recorded in the rows) return; anything else raises TaskFailed,
    which Spark retries (75 is the status meant for that)."""
    cmd = job.command(shard)
    crash = crash_here(job.name, shard, attempt)
    lines: list[str] = []
    # stderr to a file, not a pipe: read only at the end, it could fill a pipe and block the child
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errf:
        with subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE if job.list_text is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errf,
            text=True,
        ) as proc:
            assert proc.stdout is not None
            if job.list_text is not None and proc.stdin is not None:
                try:
                    proc.stdin.write(job.list_text)
                    proc.stdin.close()
                except BrokenPipeError:
                    pass
            for line in proc.stdout:
                lines.append(line)
                if crash:
                    # the worker dies mid-task: its child goes with it (as when a
                    # container is killed), Spark sees the Python worker crash
                    os.kill(proc.pid, signal.SIGKILL)
                    os._exit(137)
            status = proc.wait()
        errf.seek(0)
        stderr = errf.read()
    if status not in (0, EXIT_BAD_INPUT):
        what = "transient, retry" if status == EXIT_TRANSIENT else "failed"
        raise TaskFailed(f"{job.name} shard {shard}: {' '.join(cmd)}: exit {status} ({what}): {stderr.strip()[-2000:]}")
    return list(parse_rows(lines, job.name, shard, attempt, status))


def result_schema() -> Any:
    from pyspark.sql.types import DoubleType, IntegerType, LongType, StringType, StructField, StructType

    kinds = {"string": StringType(), "long": LongType(), "double": DoubleType(), "int": IntegerType()}
    return StructType([StructField(n, kinds[k], True) for n, k in RESULT_FIELDS])


LOCAL_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def spark_session(master: Optional[str], app: str = "arcport") -> "SparkSession":
    """A session with speculation off (a task never runs twice at once)."""
    from pyspark.sql import SparkSession

    b = SparkSession.builder.appName(app).config("spark.speculation", "false").config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
    if master and master.startswith("local"):
        # the Python workers are this interpreter (the venv with pyspark)
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        # The JVM of local mode only schedules and pipes (arcport does the
        # work): the client compiler alone and the serial collector start
        # it faster (LOCAL_JAVA_OPTIONS; ARCPORT_SPARK_JAVA_OPTIONS replaces
        # them, "" for none).
        opts = os.environ.get("ARCPORT_SPARK_JAVA_OPTIONS", LOCAL_JAVA_OPTIONS)
        if opts:
            b = b.config("spark.driver.extraJavaOptions", opts)
    if "SPARK_HOME" not in os.environ:
        # spark-submit would otherwise start a Python interpreter to find it
        try:
            from pyspark.find_spark_home import _find_spark_home

            os.environ["SPARK_HOME"] = _find_spark_home()
        except Exception:  # pragma: no cover - spark-submit finds it itself
            pass
    if master:
        b = b.master(master)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark


def pipe_rows(lines: Iterable[str], job: str) -> list[dict[str, Any]]:
    """The rows of the JVM path's output: each task's --emit lines, then its
    PIPE_SCRIPT line naming the shard and the exit status (the attempt is
    not known there: None)."""
    rows: list[dict[str, Any]] = []
    pending: list[str] = []
    for line in lines:
        if line.startswith('{"arcport_shard":'):
            end = json.loads(line)
            rows.extend(parse_rows(pending, job, int(end["arcport_shard"]), None, int(end["arcport_exit"])))  # type: ignore[arg-type]
            pending = []
        elif line.strip():
            pending.append(line)
    if pending:
        raise TaskFailed(f"{job}: {len(pending)} result line(s) after the last task's end")
    return rows


def run_pipe(spark: "SparkSession", job: BatchJob) -> list[dict[str, Any]]:
    """Runs job's tasks in the JVM (JavaRDD.pipe, one partition per shard):
    no Python worker is started, which is most of what a job costs in a
    new session beside arcport's own work."""
    sc = spark.sparkContext
    jvm = sc._jvm  # type: ignore[attr-defined]
    elems = jvm.java.util.ArrayList()
    for i in range(job.shard_count):
        elems.add(job.pipe_input(i))
    cmd = jvm.java.util.ArrayList()
    for c in job.pipe_command():
        cmd.add(c)
    env = jvm.java.util.HashMap()
    env.put("ARCPORT_SPARK_JOB", job.name)
    try:
        out = sc._jsc.parallelize(elems, job.shard_count).pipe(cmd, env).collect()  # type: ignore[attr-defined]
    except Exception as e:  # py4j's Py4JJavaError: a task failed spark.task.maxFailures times
        msg = str(e).strip().splitlines()
        raise TaskFailed(f"{job.name}: {' '.join(msg[:3])[:2000]}") from None
    return pipe_rows(out, job.name)


def run_job(spark: "SparkSession", job: BatchJob) -> tuple["DataFrame", JobResult]:
    """Runs job's shard_count tasks (one partition each) and returns the
    rows as a DataFrame too."""
    res = run_rows(spark, job)
    df = spark.createDataFrame(res.rows, result_schema())  # type: ignore[arg-type]
    return df, res


def run_rows(spark: "SparkSession", job: BatchJob) -> JobResult:
    """Runs job's shard_count tasks (one partition each) and collects the
    rows, without a DataFrame (whose first one in a session starts Spark
    SQL: seconds)."""
    from pyspark import TaskContext

    t0 = time.monotonic()
    sc = spark.sparkContext
    sc.setJobDescription(f"arcport {job.name}: {' '.join(job.argv)}")
    if job.via == "pipe":
        rows = run_pipe(spark, job)
    else:

        def task(index: int, _: Iterator[int]) -> Iterator[dict[str, Any]]:
            ctx = TaskContext.get()
            attempt = ctx.attemptNumber() if ctx is not None else 0
            return iter(run_task(job, index, attempt))

        rows = sc.parallelize(range(job.shard_count), job.shard_count).mapPartitionsWithIndex(task).collect()
    res = JobResult(job.name, rows, time.monotonic() - t0)
    for r in rows:
        res.counts[r["status"]] = res.counts.get(r["status"], 0) + 1
    return res


def zipnum_part(
    cluster: str, shards: int, runs: str, part: int, bin_dir: Optional[str], extra: Sequence[str]
) -> dict[str, Any]:
    """Writes part `part` of the cluster from the runs (`--shard K`)."""
    cmd = [binary("waczpack", bin_dir), "index", "--zipnum", cluster, "--shards", str(shards), "--shard", str(part), *extra, runs]
    t0 = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise TaskFailed(f"part {part}: {' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()[-2000:]}")
    return {"part": part, "seconds": round(time.monotonic() - t0, 3)}


def build_zipnum(
    spark: "SparkSession",
    list_name: str,
    runs: str,
    cluster: str,
    shards: int,
    run_tasks: int,
    bin_dir: Optional[str] = None,
    use_plan: bool = False,
    extra: Sequence[str] = (),
    name: str = "zipnum",
) -> JobResult:
    """A collection's ZipNum cluster, end to end (docs/collections.md):
    1. a sorted run per WARC (`waczpack index --sort`, batch mode, run_tasks tasks,
       --skip-existing: a rerun redoes only missing runs);
    2. one task per part (`--zipnum CLUSTER --shards S --shard K RUNS`);
    3. cluster.idx and cluster.loc on the driver (`--finish`)."""
    runs = runs.rstrip("/") + "/"
    job = make_job(
        name + "-runs",
        ["waczpack", "index", "--sort", "-j", "1", "-o", runs + "{stem}.cdxj", "--skip-existing"],
        list_name,
        run_tasks,
        bin_dir,
        use_plan,
    )
    t0 = time.monotonic()
    runres = run_rows(spark, job)
    bad = runres.counts.get("bad", 0)
    if bad:
        raise TaskFailed(f"{name}: {bad} bad input(s): no cluster")
    sc = spark.sparkContext
    sc.setJobDescription(f"arcport {name}: {shards} parts")
    xs = tuple(extra)

    def part(index: int, _: Iterator[int]) -> Iterator[dict[str, Any]]:
        return iter([zipnum_part(cluster, shards, runs, index, bin_dir, xs)])

    parts = sc.parallelize(range(shards), shards).mapPartitionsWithIndex(part).collect()
    cmd = [binary("waczpack", bin_dir), "index", "--zipnum", cluster, "--shards", str(shards), "--finish"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise TaskFailed(f"{name}: --finish: exit {done.returncode}: {done.stderr.strip()}")
    res = JobResult(name, runres.rows, time.monotonic() - t0, dict(runres.counts))
    res.counts["parts"] = len(parts)
    return res


def write_rows(path: str, rows: Sequence[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")


def run_spec(spark: "SparkSession", spec: dict[str, Any], bin_dir: Optional[str]) -> JobResult:
    """One job of a jobs file (see main's help)."""
    kind = spec.get("kind", "run")
    name = spec["name"]
    bd = spec.get("bin_dir", bin_dir)
    if kind == "run":
        job = make_job(name, spec["argv"], spec["list"], int(spec["shard_count"]), bd, bool(spec.get("plan")), spec.get("via", "python"))
        res = run_rows(spark, job)
    elif kind == "zipnum":
        res = build_zipnum(
            spark,
            spec["list"],
            spec["runs"],
            spec["cluster"],
            int(spec["shards"]),
            int(spec.get("run_tasks", spec["shards"])),
            bd,
            bool(spec.get("plan")),
            spec.get("extra", ()),
            name,
        )
    else:
        raise ValueError(f"job {name}: kind {kind!r}: want run or zipnum")
    if spec.get("results"):
        write_rows(spec["results"], res.rows)
    return res


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="arcport_spark.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--master", help="Spark master (default: spark-submit's, else local[2])")
    p.add_argument("--bin-dir", help="folder of the arcport binaries on every executor (default: PATH)")
    p.add_argument("--results", help="write the result rows (JSON lines) to this local file")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="one batch command over a list: run [flags] -- COMMAND ARGS...")
    r.add_argument("--list", required=True, help="the list: a local file (fed to the tasks), s3://... or http(s)://... (read by each task)")
    r.add_argument("--shard-count", type=int, required=True, help="tasks (Spark partitions)")
    r.add_argument("--plan", action="store_true", help="balance the list by size first (waczpack plan on the driver)")
    r.add_argument("--name", default="run")
    r.add_argument("--via", choices=VIAS, default="python",
                   help="how tasks run arcport: python (a Python worker per task; the default) or pipe (the JVM, "
                   "Spark's PipedRDD: no Python worker, much less fixed cost; attempt numbers not known)")
    r.add_argument("argv", nargs=argparse.REMAINDER, help="-- COMMAND ARGS (without --inputs/--shard-*/--emit)")
    z = sub.add_parser("zipnum", help="a collection's ZipNum cluster from a list of WARCs")
    z.add_argument("--list", required=True)
    z.add_argument("--runs", required=True, help="folder or s3:// prefix for the sorted runs")
    z.add_argument("--cluster", required=True, help="folder or s3:// prefix of the cluster")
    z.add_argument("--shards", type=int, required=True, help="parts of the cluster (tasks of step 2)")
    z.add_argument("--run-tasks", type=int, help="tasks of step 1 (default: --shards)")
    z.add_argument("--plan", action="store_true")
    z.add_argument("extra", nargs=argparse.REMAINDER, help="-- flags for the part tasks (e.g. --block-lines 1000)")
    j = sub.add_parser("jobs", help="several jobs in one Spark session, from a JSON file (a list of objects)")
    j.add_argument("file", help='[{"kind":"run","name":..,"list":..,"shard_count":K,"argv":[..],"plan":false,"via":"python","results":PATH},'
                   ' {"kind":"zipnum","name":..,"list":..,"runs":..,"cluster":..,"shards":S,"run_tasks":K,"extra":[..]}]')
    a = p.parse_args(argv)

    if a.cmd == "run":
        args = a.argv[1:] if a.argv[:1] == ["--"] else a.argv
        if not args:
            p.error("run: give the command after --")
        specs = [{"kind": "run", "name": a.name, "list": a.list, "shard_count": a.shard_count, "argv": args, "plan": a.plan, "via": a.via}]
    elif a.cmd == "zipnum":
        extra = a.extra[1:] if a.extra[:1] == ["--"] else a.extra
        specs = [{"kind": "zipnum", "name": "zipnum", "list": a.list, "runs": a.runs, "cluster": a.cluster,
                  "shards": a.shards, "run_tasks": a.run_tasks or a.shards, "plan": a.plan, "extra": extra}]
    else:
        with open(a.file, encoding="utf-8") as f:
            specs = json.load(f)

    master = a.master
    if master is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
        master = "local[2]"  # run with python, not spark-submit (which sets the gateway and the master)
    spark = spark_session(master)
    status = 0
    rows: list[dict[str, Any]] = []
    try:
        for spec in specs:
            res = run_spec(spark, spec, a.bin_dir)
            rows.extend(res.rows)
            print(json.dumps(res.summary(), sort_keys=True), flush=True)
            if res.counts.get("bad"):
                status = EXIT_BAD_INPUT
    finally:
        spark.stop()
    if a.results:
        write_rows(a.results, rows)
    return status


if __name__ == "__main__":
    sys.exit(main())
