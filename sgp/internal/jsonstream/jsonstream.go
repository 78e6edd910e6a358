// Package jsonstream reads untrusted JSON, the model files of package sgp,
// as a stream of tokens (encoding/json's Decoder.Token), so that every
// array and object is checked against its bound as it is read instead of
// after it has been decoded whole. Package sgp reads a model file's
// fields with it, and package kernel the kernel and inputs within.
package jsonstream

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cholqr/sgp/sgp/internal/table"
)

// Limits of the stream that no size in a file declares.
const (
	MaxObjectKeys = 64      // keys of an object other than hyperparameters
	maxSkipTokens = 1 << 16 // tokens of the value of a key this version does not know
)

// Error is an error about the content of a model file, passed on as it
// is; other errors come from reading or parsing the JSON.
type Error struct{ error }

// Unwrap returns the error it holds.
func (e Error) Unwrap() error { return e.error }

// Errorf returns an Error whose message starts "sgp: model file: ".
func Errorf(format string, args ...any) error {
	return Error{fmt.Errorf("sgp: model file: "+format, args...)}
}

// Decoder reads the JSON tokens of a model file.
type Decoder struct {
	*json.Decoder
}

// Value decodes one scalar value (a number, string or null; null leaves
// v as it is, as encoding/json does) for key into v.
func (d Decoder) Value(key string, v any) error {
	if err := d.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Errorf("%q holds a %s where a %s belongs", table.Short(key), te.Value, te.Type)
		}
		return err
	}
	return nil
}

// Floats reads an array of at most max numbers for key into *dst.
func (d Decoder) Floats(key string, dst *[]float64, max int) error {
	*dst = []float64{}
	return d.Array(key, max, func(int) error {
		var v float64
		err := d.Value(key, &v)
		*dst = append(*dst, v)
		return err
	})
}

// Strs reads an array of at most max strings for key into *dst.
func (d Decoder) Strs(key string, dst *[]string, max int) error {
	*dst = []string{}
	return d.Array(key, max, func(int) error {
		var s string
		err := d.Value(key, &s)
		*dst = append(*dst, s)
		return err
	})
}

// Ints reads an array of at most max integers for key into *dst.
func (d Decoder) Ints(key string, dst *[]int, max int) error {
	*dst = []int{}
	return d.Array(key, max, func(int) error {
		var v int
		err := d.Value(key, &v)
		*dst = append(*dst, v)
		return err
	})
}

// Array reads an array for key, calling elem for each element, and
// refuses more than max elements. null reads as no elements.
func (d Decoder) Array(key string, max int, elem func(i int) error) error {
	t, err := d.Token()
	if err != nil || t == nil {
		return err
	}
	if t != json.Delim('[') {
		return Errorf("%q is not an array", table.Short(key))
	}
	return d.Elems(key, 0, max, elem)
}

// Elems reads the elements of an array for key whose '[' and first
// elements have been read, calling elem for element from, from+1, …, and
// the closing ']'; it refuses more than max elements in all.
func (d Decoder) Elems(key string, from, max int, elem func(i int) error) error {
	for i := from; d.More(); i++ {
		if i >= max {
			return Errorf("%q has more than %d entries", table.Short(key), max)
		}
		if err := elem(i); err != nil {
			return err
		}
	}
	_, err := d.Token() // ']'
	return err
}

// Object reads an object for what, calling field for each key; it
// refuses more than max keys and, with unique, a key given twice. null
// reads as no keys.
func (d Decoder) Object(what string, max int, unique bool, field func(key string) error) error {
	t, err := d.Token()
	if err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	if t != json.Delim('{') {
		return Errorf("%s is not a JSON object", what)
	}
	return d.Keys(what, max, unique, field)
}

// Keys reads the keys and values of an object for what whose '{' has been
// read, as Object does, and its closing '}'.
func (d Decoder) Keys(what string, max int, unique bool, field func(key string) error) error {
	var seen map[string]bool
	if unique {
		seen = make(map[string]bool)
	}
	for i := 0; d.More(); i++ {
		if i >= max {
			return Errorf("%s has more than %d keys", what, max)
		}
		t, err := d.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		if unique {
			if seen[key] {
				return Errorf("%s has the key %q twice", what, table.Short(key))
			}
			seen[key] = true
		}
		if err := field(key); err != nil {
			return err
		}
	}
	_, err := d.Token() // '}'
	return err
}

// Skip reads and drops the value of a key this version does not know, of
// at most maxSkipTokens tokens.
func (d Decoder) Skip(key string) error {
	depth := 0
	for n := 0; ; n++ {
		if n >= maxSkipTokens {
			return Errorf("the value of the unknown key %q is too large", table.Short(key))
		}
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('['), json.Delim('{'):
			depth++
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
