package wire

import "encoding/json"

// OpCommFileBatch carries several comm.file requests over a link in one
// request, so a burst of lines for one box crosses each hop in one frame and
// reaches its inbox in one group commit. Each item is decoded, checked, routed
// and answered on its own, as its own comm.file would be: the answer holds one
// result per request, in their order. A peer older than the op answers
// unknown_op, and its requests then go one comm.file each.
const OpCommFileBatch = "comm.file.batch"

// MaxBatch bounds the requests one comm.file.batch may carry; a longer batch is
// refused whole, with nothing done.
const MaxBatch = 256

// CommFileBatch is a comm.file.batch request: each item a comm.file payload.
type CommFileBatch struct {
	Requests []json.RawMessage `json:"requests"`
}

// Validate refuses a batch past MaxBatch.
func (b CommFileBatch) Validate() error {
	if len(b.Requests) > MaxBatch {
		return Refuse(CodeBadRequest, "a comm.file.batch of %d requests is over the %d allowed; nothing was done", len(b.Requests), MaxBatch)
	}
	return nil
}

// CommFiledBatch answers a comm.file.batch: Results[i] answers Requests[i].
type CommFiledBatch struct {
	Results []FiledItem `json:"results"`
}

// FiledItem is one request's answer in a batch: a CommFiled, or a refusal's
// words and code.
type FiledItem struct {
	CommFiled
	Error string `json:"error,omitempty"`
	Code  string `json:"code,omitempty"`
}

// ItemOf is the batch item that answers with res, or err as the refusal a
// sender sees.
func ItemOf(res CommFiled, err error) FiledItem {
	if err != nil {
		r := AsRefusal(err)
		return FiledItem{Error: r.Sentence, Code: r.Code}
	}
	return FiledItem{CommFiled: res}
}

// Result is the item as comm.file's own answer would read: a refusal is a
// *Refusal.
func (it FiledItem) Result() (CommFiled, error) {
	if it.Code != "" || it.Error != "" {
		return CommFiled{}, &Refusal{Op: OpCommFile, Code: it.Code, Sentence: it.Error}
	}
	return it.CommFiled, nil
}
