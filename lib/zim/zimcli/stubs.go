package zimcli

import "errors"

var errTODO = errors.New("not implemented yet")

func (e *env) warc() int { return e.exception(errTODO) }
