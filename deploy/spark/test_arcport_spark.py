"""Tests of arcport_spark.py's task side, without a Spark session: the
command lines, the list handling, and run_task against the real arcport
binaries in $ARCPORT_BIN_DIR (e2e/spark_test.go: TestSparkDriverTasks sets
it; the Spark side is TestSparkBatch).

    ARCPORT_BIN_DIR=bin python -m unittest -v deploy/spark/test_arcport_spark.py
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import arcport_spark as drv  # noqa: E402

BIN_DIR = os.environ.get("ARCPORT_BIN_DIR", "")
REPO = Path(__file__).resolve().parents[2]
EXAMPLE_ARC = REPO / "testdata" / "arc" / "example.arc.gz"


class CommandTest(unittest.TestCase):
    def test_command(self) -> None:
        job = drv.BatchJob("j", ("arc2warc", "-o", "out/{stem}.warc.gz"), "-", 3, "a.arc\n", "/opt/arcport")
        self.assertEqual(
            job.command(2),
            ["/opt/arcport/arc2warc", "-o", "out/{stem}.warc.gz", "--inputs", "-",
             "--shard-index", "2", "--shard-count", "3", "--emit", "jsonl"],
        )

    def test_make_job_lists(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            lst = os.path.join(d, "list.txt")
            Path(lst).write_text("# two\na.arc\nb.arc\n")
            local = drv.make_job("l", ["arc2warc"], lst, 2, None)
            self.assertEqual((local.inputs, local.list_text), ("-", "# two\na.arc\nb.arc\n"))
        remote = drv.make_job("r", ["arc2warc"], "s3://coll/lists/arcs.txt", 2, None)
        self.assertEqual((remote.inputs, remote.list_text), ("s3://coll/lists/arcs.txt", None))
        with self.assertRaises(ValueError):
            drv.make_job("z", ["arc2warc"], "s3://coll/l.txt", 0, None)

    def test_parse_rows(self) -> None:
        lines = ['{"input":"a","output":"b","status":"done","records":3,"bytes":10,"sha256":"ab","seconds":0.5}\n', "\n"]
        rows = list(drv.parse_rows(lines, "j", 1, 0, 0))
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["records"], 3)
        self.assertIsNone(rows[0]["error"])
        self.assertEqual([k for k, _ in drv.RESULT_FIELDS], list(rows[0]))

    def test_crash_hook(self) -> None:
        os.environ[drv.CRASH_ENV] = "a:1,b:2"
        try:
            self.assertTrue(drv.crash_here("b", 2, 0))
            self.assertFalse(drv.crash_here("b", 2, 1))
            self.assertFalse(drv.crash_here("a", 2, 0))
        finally:
            del os.environ[drv.CRASH_ENV]


@unittest.skipUnless(BIN_DIR, "ARCPORT_BIN_DIR not set (the arcport binaries)")
class RunTaskTest(unittest.TestCase):
    """run_task with the real arc2warc: the exit statuses as Spark sees them."""

    def setUp(self) -> None:
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        shutil.copy(EXAMPLE_ARC, os.path.join(self.dir, "good.arc.gz"))
        Path(self.dir, "bad.arc").write_bytes(b"this is not an ARC file\n")

    def job(self, names: list[str], template: str, k: int = 1) -> drv.BatchJob:
        text = "".join(os.path.join(self.dir, n) + "\n" for n in names)
        return drv.BatchJob("t", ("arc2warc", "-o", os.path.join(self.dir, template)), "-", k, text, BIN_DIR)

    def test_done_then_skipped(self) -> None:
        job = self.job(["good.arc.gz"], "out/{stem}.warc.gz", 1)
        job = drv.BatchJob(job.name, job.argv + ("--skip-existing",), job.inputs, 1, job.list_text, BIN_DIR)
        rows = drv.run_task(job, 0)
        self.assertEqual([r["status"] for r in rows], ["done"])
        out = Path(rows[0]["output"])
        self.assertEqual(rows[0]["bytes"], out.stat().st_size)
        again = drv.run_task(job, 0, attempt=1)
        self.assertEqual([(r["status"], r["attempt"], r["sha256"]) for r in again], [("skipped", 1, rows[0]["sha256"])])

    def test_bad_input_is_a_row_not_a_retry(self) -> None:
        rows = drv.run_task(self.job(["good.arc.gz", "bad.arc"], "out/{stem}.warc.gz"), 0)
        by = {os.path.basename(r["input"]): r for r in rows}
        self.assertEqual(by["good.arc.gz"]["status"], "done")
        self.assertEqual(by["bad.arc"]["status"], "bad")
        self.assertTrue(by["bad.arc"]["error"])
        self.assertEqual({r["exit"] for r in rows}, {drv.EXIT_BAD_INPUT})

    def test_shares(self) -> None:
        job = self.job(["good.arc.gz", "bad.arc"], "out/{stem}.warc.gz", 2)
        self.assertEqual([os.path.basename(r["input"]) for r in drv.run_task(job, 0)], ["good.arc.gz"])

    def test_usage_raises(self) -> None:
        # a template without {stem}/{name}/{index}: exit 2, raised for Spark
        with self.assertRaises(drv.TaskFailed) as cm:
            drv.run_task(self.job(["good.arc.gz"], "out/same.warc.gz"), 0)
        self.assertIn("exit 2", str(cm.exception))

    def test_results_file(self) -> None:
        p = os.path.join(self.dir, "rows.jsonl")
        drv.write_rows(p, drv.run_task(self.job(["good.arc.gz"], "o/{stem}.warc.gz"), 0))
        self.assertEqual(json.loads(Path(p).read_text())["status"], "done")


def run_pipe_script(job: drv.BatchJob, shard: int, env: dict[str, str] | None = None) -> tuple[int, list[str]]:
    """One task of the JVM path as Spark's PipedRDD runs it: the partition's
    element and a newline on standard input, the lines of standard output."""
    import subprocess

    e = dict(os.environ, ARCPORT_SPARK_JOB=job.name, **(env or {}))
    done = subprocess.run(job.pipe_command(), input=job.pipe_input(shard) + "\n", capture_output=True, text=True, env=e, check=False)
    return done.returncode, done.stdout.splitlines()


class PipeRowsTest(unittest.TestCase):
    def test_pipe_command(self) -> None:
        job = drv.BatchJob("j", ("arc2warc", "-o", "out/{stem}.warc.gz"), "-", 3, "a.arc\nb.arc\n", "/opt/arcport", "pipe")
        self.assertEqual(job.pipe_command()[:4], ["sh", "-c", drv.PIPE_SCRIPT, "/opt/arcport/arc2warc"])
        self.assertEqual(job.pipe_command()[4:], ["-o", "out/{stem}.warc.gz", "--inputs", "-", "--shard-count", "3", "--emit", "jsonl"])
        self.assertEqual(job.pipe_input(2), "2\na.arc\nb.arc")
        remote = drv.BatchJob("j", ("arc2warc",), "s3://coll/l.txt", 3, None, None, "pipe")
        self.assertEqual(remote.pipe_input(1), "1")

    def test_pipe_rows(self) -> None:
        a = '{"input":"a","output":"x","status":"done","records":3,"bytes":10,"sha256":"ab","seconds":0.5}'
        b = '{"input":"b","output":"y","status":"bad","records":0,"bytes":0,"sha256":"","seconds":0.1,"error":"e"}'
        rows = drv.pipe_rows([a, '{"arcport_shard":0,"arcport_exit":0}', b, a, '{"arcport_shard":1,"arcport_exit":65}'], "j")
        self.assertEqual([(r["input"], r["shard"], r["exit"], r["attempt"]) for r in rows],
                         [("a", 0, 0, None), ("b", 1, 65, None), ("a", 1, 65, None)])
        with self.assertRaises(drv.TaskFailed):
            drv.pipe_rows([a], "j")
        with self.assertRaises(ValueError):
            drv.make_job("j", ["arc2warc"], "s3://c/l.txt", 1, None, via="jvm")


@unittest.skipUnless(BIN_DIR, "ARCPORT_BIN_DIR not set (the arcport binaries)")
class PipeScriptTest(unittest.TestCase):
    """PIPE_SCRIPT (the JVM path's task) with the real arc2warc."""

    def setUp(self) -> None:
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        shutil.copy(EXAMPLE_ARC, os.path.join(self.dir, "good.arc.gz"))
        shutil.copy(EXAMPLE_ARC, os.path.join(self.dir, "good2.arc.gz"))
        Path(self.dir, "bad.arc").write_bytes(b"this is not an ARC file\n")

    def job(self, names: list[str], template: str, k: int = 1, *extra: str) -> drv.BatchJob:
        text = "".join(os.path.join(self.dir, n) + "\n" for n in names)
        return drv.BatchJob("t", ("arc2warc", "-o", os.path.join(self.dir, template), *extra), "-", k, text, BIN_DIR, "pipe")

    def test_statuses(self) -> None:
        code, lines = run_pipe_script(self.job(["good.arc.gz", "bad.arc", "good2.arc.gz"], "out/{stem}.warc.gz", 2), 0)
        self.assertEqual(code, 0)  # 65 is a result, not a failed task
        rows = drv.pipe_rows(lines, "t")
        self.assertEqual([(os.path.basename(r["input"]), r["status"], r["shard"], r["exit"]) for r in rows],
                         [("good.arc.gz", "done", 0, 0), ("good2.arc.gz", "done", 0, 0)])
        code, lines = run_pipe_script(self.job(["good.arc.gz", "bad.arc"], "out/{stem}.warc.gz", 2), 1)
        self.assertEqual([(r["status"], r["shard"], r["exit"]) for r in drv.pipe_rows(lines, "t")], [("bad", 1, 65)])
        # bad usage: the task fails (PipedRDD raises on a status other than 0)
        code, lines = run_pipe_script(self.job(["good.arc.gz"], "out/same.warc.gz"), 0)
        self.assertEqual((code, lines), (2, []))

    def test_crash_hook(self) -> None:
        job = self.job(["good.arc.gz", "good2.arc.gz"], "out/{stem}.warc.gz", 1, "--skip-existing")
        env = {drv.CRASH_ENV: "x:3,t:0", "ARCPORT_SPARK_TEST_MARK": os.path.join(self.dir, "mark")}
        code, lines = run_pipe_script(job, 0, env)
        self.assertEqual(code, 137)
        self.assertEqual([json.loads(x)["status"] for x in lines], ["done"])
        code, lines = run_pipe_script(job, 0, env)  # the retry: the marker is there
        self.assertEqual(code, 0)
        rows = drv.pipe_rows(lines, "t")
        # the input reported before the kill is skipped; the other one was
        # done again or, when arcport got to it before the kill, skipped
        self.assertEqual([os.path.basename(r["input"]) for r in rows], ["good.arc.gz", "good2.arc.gz"])
        self.assertEqual(rows[0]["status"], "skipped")
        self.assertIn(rows[1]["status"], ("done", "skipped"))


if __name__ == "__main__":
    unittest.main()
