package wire

import "time"

// OpCommReceipts asks for the lines a sender filed recently, and whether each
// was read, across the boxes a daemon can reach: a guest asks its hub, the hub
// asks every other linked box.
const OpCommReceipts = "comm.receipts"

// Bounds of one comm.receipts.
const (
	// ReceiptsWait bounds the hub's asking of the other boxes; a box that has
	// not answered by then is named unanswered. Well under the 5 s a person
	// waits for `sotd sent`, with room for a guest's hop to the hub.
	ReceiptsWait = 2 * time.Second
	// ReceiptsMax is the most lines a request may ask per receiver; 0 asks for
	// ReceiptsDefault.
	ReceiptsMax     = 100
	ReceiptsDefault = 20
	// ReceiptMsg is the most of a message's bytes a receipt carries: it is the
	// sender's own text, shown to know which line it is, and 512 KiB bodies
	// would not fit one answer frame.
	ReceiptMsg = 1 << 10
	// ReceiptsBudget is the most bytes of receipts one answer carries, under
	// the 1 MiB frame with room for its envelope; the oldest lines beyond it
	// are left out and counted.
	ReceiptsBudget = 768 << 10
)

// CommReceipts asks for the last Max lines From sent into each inbox (To's
// alone when given). Forwarded marks a request a box sends on: a guest that
// gets one answers from its own home and asks no one.
type CommReceipts struct {
	From      string `json:"from"`
	To        string `json:"to,omitempty"`
	Max       int    `json:"max,omitempty"`
	Forwarded bool   `json:"forwarded,omitempty"`
}

// Receipt is one line the sender filed, as filer.Receipt has it (its keys,
// in its order), less what the asker knows (from) and plus the box whose home
// holds the inbox. Read: the receiver's cursor is past the line.
type Receipt struct {
	To   string `json:"to"`
	Msg  string `json:"msg"`
	TS   string `json:"ts"`
	ID   string `json:"id,omitempty"`
	Read bool   `json:"read"`
	Box  string `json:"box,omitempty"`
	Cut  bool   `json:"cut,omitempty"` // Msg is the message's first ReceiptMsg bytes
}

// ReceiptList answers comm.receipts: the receipts, by receiver then time, each
// line once however many boxes see its inbox; the boxes whose receipts are
// missing (no answer in time, a refusal, or no link where there should be
// one); and how many old lines were left out to keep within ReceiptsBudget.
type ReceiptList struct {
	Receipts   []Receipt `json:"receipts"`
	Unanswered []string  `json:"unanswered,omitempty"`
	Omitted    int       `json:"omitted,omitempty"`
}

// PerReceiver is the lines asked per receiver: Max held to 1..ReceiptsMax, 0
// taking ReceiptsDefault.
func (r CommReceipts) PerReceiver() int {
	if r.Max <= 0 {
		return ReceiptsDefault
	}
	return min(r.Max, ReceiptsMax)
}
