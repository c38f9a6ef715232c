package zimcli

import "errors"

var errTODO = errors.New("not implemented yet")

func (e *env) dump() int     { return e.exception(errTODO) }
func (e *env) check() int    { return e.exception(errTODO) }
func (e *env) meta() int     { return e.exception(errTODO) }
func (e *env) warc() int     { return e.exception(errTODO) }
func (e *env) infoJSON() int { return e.exception(errTODO) }
func (e *env) listJSON() int { return e.exception(errTODO) }
