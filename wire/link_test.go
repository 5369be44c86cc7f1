package wire

import (
	"encoding/json"
	"testing"
)

func TestLinkDirectoryOnTheWire(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    LinkDirectory
		want string
	}{
		{"full set", LinkDirectory{Full: true, Added: []string{"a-box", "b-box"}}, `{"full":true,"added":["a-box","b-box"]}`},
		{"changes", LinkDirectory{Added: []string{"c-box"}, Removed: []string{"a-box"}}, `{"added":["c-box"],"removed":["a-box"]}`},
		{"empty full set", LinkDirectory{Full: true}, `{"full":true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.d)
			if err != nil || string(b) != tc.want {
				t.Fatalf("Marshal = %s, %v; want %s", b, err, tc.want)
			}
			var back LinkDirectory
			if err := DecodePayload(b, &back); err != nil {
				t.Fatal(err)
			}
			if again, _ := json.Marshal(back); string(again) != tc.want {
				t.Fatalf("round trip = %s, want %s", again, tc.want)
			}
		})
	}
}

func TestAnswerReadsRefusalsAndResults(t *testing.T) {
	var ok CommFiled
	if err := Answer(Envelope{Kind: KindRes, Op: OpCommFile, Payload: []byte(`{"ok":true,"to":"bob"}`)}, &ok); err != nil || ok.To != "bob" {
		t.Fatalf("Answer(result) = %+v, %v", ok, err)
	}
	err := Answer(Envelope{Kind: KindRes, Op: OpCommFile, Payload: []byte(`{"error":"busy now","code":"busy"}`)}, &ok)
	re, isRemote := RefusalOf(err)
	if !isRemote || re.Code != CodeBusy || re.Sentence != "busy now" {
		t.Fatalf("Answer(refusal) = %v, want a *Refusal busy", err)
	}
}
