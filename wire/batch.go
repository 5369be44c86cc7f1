package wire

import "encoding/json"

// OpCommFileBatch carries several comm.file requests over a link in one
// request, so a burst of lines for one box crosses each hop in one frame and
// reaches its inbox in one group commit. Each item is decoded, checked, routed
// and answered on its own, as its own comm.file would be: the answer holds one
// result per request, in their order. A peer older than the op answers
// unknown_op, and its requests then go one comm.file each.
const OpCommFileBatch = "comm.file.batch"

// OpCommFileItems (kind evt, the id of a comm.file.batch request) answers
// some of that batch's items before the batch's own answer, on the stream
// that answer takes, when both hellos agreed to Items: an item held up (an
// inbox lock, a box that does not answer) then delays no other item's answer.
// The batch's own answer still holds every item's result, so an item answered
// early is answered twice, the same way; the first answer is the one taken.
const OpCommFileItems = "comm.file.items"

// FiledItems is an OpCommFileItems payload: some items' answers, each with its
// place in the batch.
type FiledItems struct {
	Items []IndexedItem `json:"items"`
}

// IndexedItem is the answer to the batch's request at Index.
type IndexedItem struct {
	Index int `json:"i"`
	FiledItem
}

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
