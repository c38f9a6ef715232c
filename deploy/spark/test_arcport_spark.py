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


if __name__ == "__main__":
    unittest.main()
