// Package cliutil holds what the five arcport binaries share on the command
// line, following the CLI conventions of ../shared/GUIDE.md: the version
// string, exit codes, atomic output files and the rule that progress goes to
// stderr only when stderr is a terminal.
package cliutil
