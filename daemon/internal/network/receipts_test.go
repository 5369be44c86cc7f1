package network

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sotcomm/sotd/daemon/internal/rigtest"
	"github.com/sotcomm/sotd/wire"
)

func TestMergeReceipts(t *testing.T) {
	r := func(to, id, msg, box string) wire.Receipt {
		return wire.Receipt{To: to, ID: id, Msg: msg, TS: "2026-05-29T18:0" + msg[len(msg)-1:] + ":00Z", Box: box}
	}
	for _, tc := range []struct {
		name  string
		parts []wire.ReceiptList
		max   int
		want  []string
		unans []string
	}{
		{
			name: "a line two boxes see is kept once, as the first part has it",
			parts: []wire.ReceiptList{
				{Receipts: []wire.Receipt{r("b", "X", "m1", "own")}},
				{Receipts: []wire.Receipt{r("b", "X", "m1", "other"), r("b", "Y", "m2", "other")}},
			},
			max:  20,
			want: []string{"@b own false m1", "@b other false m2"},
		},
		{
			name: "a line with no id is one line by its time and text",
			parts: []wire.ReceiptList{
				{Receipts: []wire.Receipt{r("b", "", "m1", "own"), r("b", "", "n1", "own")}},
				{Receipts: []wire.Receipt{r("b", "", "m1", "other")}},
			},
			max:  20,
			want: []string{"@b own false m1", "@b own false n1"},
		},
		{
			name: "one id in two inboxes is two lines",
			parts: []wire.ReceiptList{
				{Receipts: []wire.Receipt{r("b", "X", "m1", "own")}},
				{Receipts: []wire.Receipt{r("c", "X", "m1", "other")}},
			},
			max:  20,
			want: []string{"@b own false m1", "@c other false m1"},
		},
		{
			name: "by receiver, then time, the last max of each",
			parts: []wire.ReceiptList{
				{Receipts: []wire.Receipt{r("c", "1", "m3", "own"), r("b", "2", "m2", "own")}},
				{Receipts: []wire.Receipt{r("c", "3", "m1", "g"), r("b", "4", "m1", "g"), r("c", "5", "m4", "g")}},
			},
			max:  2,
			want: []string{"@b g false m1", "@b own false m2", "@c own false m3", "@c g false m4"},
		},
		{
			name:  "unanswered boxes, each once, sorted",
			parts: []wire.ReceiptList{{}, {Unanswered: []string{"gx", "gb"}}, {Unanswered: []string{"gb"}}},
			max:   20,
			unans: []string{"gb", "gx"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mergeReceipts(tc.parts, tc.max)
			if !slices.Equal(rigtest.Brief(got.Receipts), tc.want) || !slices.Equal(got.Unanswered, tc.unans) {
				t.Fatalf("merge = %q, unanswered %q; want %q, %q", rigtest.Brief(got.Receipts), got.Unanswered, tc.want, tc.unans)
			}
		})
	}
}

func TestFitBudgetKeepsTheNewest(t *testing.T) {
	var rs []wire.Receipt
	for i := range 10 {
		rs = append(rs, wire.Receipt{To: "b", Msg: strings.Repeat("x", 100), TS: fmt.Sprintf("2026-05-29T18:00:%02dZ", i), ID: fmt.Sprint(i)})
	}
	one := len(`{"to":"b","msg":"` + strings.Repeat("x", 100) + `","ts":"2026-05-29T18:00:00Z","id":"0","read":false},`)
	for _, tc := range []struct {
		name     string
		budget   int
		kept     int
		firstKey string
	}{
		{"all fit", 10 * one, 10, "0"},
		{"the three newest fit", 3*one + one/2, 3, "7"},
		{"none fits", one - 1, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, left := fitBudget(slices.Clone(rs), tc.budget)
			if len(got) != tc.kept || left != 10-tc.kept || (tc.kept > 0 && got[0].ID != tc.firstKey) {
				t.Fatalf("fitBudget kept %d (first %+v), left out %d; want %d from id %s", len(got), got, left, tc.kept, tc.firstKey)
			}
		})
	}
	// Over the budget, the answer still fits one frame.
	var big []wire.Receipt
	for i := range 2000 {
		big = append(big, wire.Receipt{To: fmt.Sprint("h", i%100), Msg: strings.Repeat("é", wire.ReceiptMsg/2), TS: "2026-05-29T18:00:00Z", ID: fmt.Sprint(i)})
	}
	res := mergeReceipts([]wire.ReceiptList{{Receipts: big}}, wire.ReceiptsMax)
	frame, err := wire.EncodeFrame(1, wire.KindRes, wire.OpCommReceipts, res)
	if err != nil || len(frame) > wire.MaxFrame || res.Omitted == 0 || res.Omitted+len(res.Receipts) != len(big) {
		t.Fatalf("a merged answer of %d receipts: frame %d bytes, %v; %d kept, %d left out", len(big), len(frame), err, len(res.Receipts), res.Omitted)
	}
}
