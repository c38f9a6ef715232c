// Package batch is the shard contract every arcport batch command shares
// (arc2warc, waczpack create/index/check, htcache export, zimdump warc): it takes
// a list of inputs, picks the share of one task of a batch engine (GNU
// parallel, a Kubernetes Indexed Job, an AWS Batch array job, Spark's
// pipe), names each input's output from a template, writes each output
// whole or not at all, records what is done, and says how a task ended in
// its exit status. The tools are callers; the engines are callers of the
// tools. docs/batch.md is the user's side of it.
//
// # The list
//
// --inputs LIST names a local file, an s3://…/list.txt object (read
// through lib/store) or "-" (standard input): one input per line, surrounding
// blanks trimmed, blank lines and lines starting with "#" ignored. Local
// inputs are relative to the working directory, not to the list. A list
// whose first line is a JSON object is a plan (see below).
//
// # The share
//
// --shard-count K (default 1, or the plan's) and --shard-index I, or I
// from ARCPORT_SHARD_INDEX, JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs)
// or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch array jobs). The flag wins over
// the environment; two of these variables set to different values, a value
// that is not a number in 0..K-1, or K > 1 with no index at all, is a
// usage error (exit 2). With a plain list, input number n (0-based, in the
// list's order, blank and comment lines not counted) belongs to task
// n mod K: every task reads the same list and computes the same split
// without talking to the others, counts are balanced to one input, and
// appending to the list never moves an input already listed.
//
// # The plan
//
// Plan stats every input once (one HEAD per s3:// object, os.Stat for a
// local file), balances the inputs over K shards by size (longest
// processing time first: the largest input goes to the least loaded shard;
// ties broken by list position, then by the lower shard number, so the
// plan is a function of the list and the sizes) and pins each input's
// size and ETag. A task given the plan as its --inputs takes the shards
// written in it and, before reading an input and again before committing
// its output, compares the input's size and ETag with the pinned ones: a
// difference is a bad input (exit 65). A local file's "ETag" is its size
// and modification time to the nanosecond ("local:SIZE:MTIME"): that is
// what S3's ETag is to an object, a cheap token that changes when the
// bytes are replaced, and it costs an os.Stat where a content hash would
// cost reading the whole collection in the planning process. It is as
// strong as the file system's mtime: a copy without -p (new mtime) makes
// a false "changed" (safe: the task stops), a rewrite that restores the
// mtime by hand goes unseen.
//
// # Outputs
//
// -o is a template: {stem} (the input's base name without a compression
// suffix and one extension: crawl-1.arc.gz -> crawl-1), {name} (the base
// name), {dir} (the input's directory: the key's for s3://bucket/a/b/x,
// a/b; a local path's, without a leading /; "" and the following slash
// dropped when there is none) and {index} (its list position, %05d). It
// must hold {stem}, {name} or {index}, and two inputs of the list may not
// get the same output name (checked over the whole list, so every task
// refuses the same list). Each output is written through lib/store: a
// temporary file renamed at Commit, or a multipart upload completed at
// Commit and aborted otherwise.
//
// Done markers are written after the output is committed, at
// DIR/_done/BASE.json beside the output DIR/BASE (a name starting with "_"
// that Hadoop and Spark readers skip): the tool, its version, the options
// that shape the output, the input's name, size and ETag, the output's
// size, ETag (local: size and mtime), SHA-256 and record count. With
// --skip-existing an input whose marker matches the input and options of
// this run and whose output still has the size and ETag in the marker is
// not processed again: one GET of the marker and one HEAD of the output,
// no PUT. A run killed between the output's commit and its marker redoes
// that input with the same bytes.
//
// # Exit status
//
// 0 when every input of the share is done (or skipped, or recorded);
// 75 (EX_TEMPFAIL) when storage failed after its retries (5xx, throttling,
// dropped connections; a full disk): the task stops at once, and the
// engine should retry it; 65 (EX_DATAERR) when an input is bad (damaged,
// not of the format, missing, changed since the plan): the task goes on
// with the other inputs and exits 65 at the end; the engine must not retry.
// With --on-bad-input record a bad input's problem is written to
// DIR/_errors/BASE.json beside its output name (and a done marker, so
// that a rerun skips it) and the task exits 0. 1 is any other failure
// (access denied, for one), 2 bad usage.
//
// --emit jsonl prints one JSON object per input on standard output:
// input, output, status (done, skipped, bad), records (what the tool set
// in Task.Records: records written, index lines, records checked), bytes,
// sha256, seconds, and error for a bad input.
package batch
