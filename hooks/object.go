package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// object is a JSON object that keeps its members' order and every value as it
// was, so editing one key of a person's settings file moves nothing else.
type object []member

type member struct {
	key string
	val json.RawMessage
}

// parseObject reads one JSON object. A key given twice keeps both members, as
// written; get answers the last, as the agents' JSON readers do.
func parseObject(raw []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("it is not a JSON object")
	}
	o := object{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, member{t.(string), v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("more follows the JSON object")
	}
	return o, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].key == key {
			return o[i].val, true
		}
	}
	return nil, false
}

func (o object) text(key string) string {
	var s string
	if v, ok := o.get(key); ok {
		json.Unmarshal(v, &s)
	}
	return s
}

// put sets key's last member, or adds it at the end.
func (o *object) put(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	for i := len(*o) - 1; i >= 0; i-- {
		if (*o)[i].key == key {
			(*o)[i].val = b
			return nil
		}
	}
	*o = append(*o, member{key, b})
	return nil
}

// del removes every member named key.
func (o *object) del(key string) {
	kept := (*o)[:0]
	for _, m := range *o {
		if m.key != key {
			kept = append(kept, m)
		}
	}
	*o = kept
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// list reads a JSON array, keeping each element's bytes.
func list(raw json.RawMessage, what string) ([]json.RawMessage, error) {
	var l []json.RawMessage
	if err := json.Unmarshal(raw, &l); err != nil || l == nil {
		return nil, fmt.Errorf("%s is not a list", what)
	}
	return l, nil
}
