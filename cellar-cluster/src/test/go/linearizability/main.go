// Checks a history of SET, GET, INCR and DEL operations on a key-value store for
// linearizability, with Porcupine (github.com/anishathalye/porcupine). The Java test
// LinearizabilityTest records the history against a Cellar cluster and runs this program.
//
// Input: one JSON object per line:
//
//	{"client":0,"op":"set","key":"k1","arg":"17","out":"OK","call":123,"ret":456}
//
// op is set (arg: the value), get (out: the value, or null when absent), incr (out: the new
// value) or del (out: the number of keys removed, 0 or 1). A write whose outcome the client
// does not know (an error or a timeout) has "unknown":true: it may have taken effect at any
// time after its call, or never. Times are nanoseconds on one clock.
//
// Exit status: 0 linearizable, 1 not (the visualization goes to -html), 2 the check ran out of
// time or the input is bad.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/anishathalye/porcupine"
)

type record struct {
	Client  int     `json:"client"`
	Op      string  `json:"op"`
	Key     string  `json:"key"`
	Arg     string  `json:"arg"`
	Out     *string `json:"out"`
	Call    int64   `json:"call"`
	Ret     int64   `json:"ret"`
	Unknown bool    `json:"unknown"`
}

type input struct {
	op  string
	key string
	arg string
}

type output struct {
	value   *string
	unknown bool
}

// state: the key's value, absent when nil. Values are decimal integers or any string.
type state struct {
	present bool
	value   string
}

func step(s interface{}, in interface{}, out interface{}) (bool, interface{}) {
	st := s.(state)
	i := in.(input)
	o := out.(output)
	switch i.op {
	case "set":
		return true, state{true, i.arg}
	case "get":
		if o.unknown {
			return true, st
		}
		if o.value == nil {
			return !st.present, st
		}
		return st.present && st.value == *o.value, st
	case "del":
		next := state{}
		if o.unknown {
			return true, next
		}
		if st.present {
			return o.value != nil && *o.value == "1", next
		}
		return o.value != nil && *o.value == "0", next
	case "incr":
		var current int64
		if st.present {
			n, err := strconv.ParseInt(st.value, 10, 64)
			if err != nil {
				// INCR of a value that is not an integer fails and changes nothing.
				return o.unknown || o.value == nil, st
			}
			current = n
		}
		next := state{true, strconv.FormatInt(current+1, 10)}
		if o.unknown {
			return true, next
		}
		return o.value != nil && *o.value == next.value, next
	}
	return false, st
}

func main() {
	historyPath := flag.String("history", "", "the history, JSON lines")
	htmlPath := flag.String("html", "", "where to write the visualization when the check fails")
	timeout := flag.Duration("timeout", 120*time.Second, "how long the check may take")
	flag.Parse()

	f, err := os.Open(*historyPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer f.Close()
	var ops []porcupine.Operation
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		var r record
		if err := json.Unmarshal(scanner.Bytes(), &r); err != nil {
			fmt.Fprintln(os.Stderr, "bad history line:", err)
			os.Exit(2)
		}
		ret := r.Ret
		if r.Unknown {
			ret = math.MaxInt64 // it may take effect at any time after its call
		}
		ops = append(ops, porcupine.Operation{
			ClientId: r.Client,
			Input:    input{r.Op, r.Key, r.Arg},
			Call:     r.Call,
			Output:   output{r.Out, r.Unknown},
			Return:   ret,
		})
	}
	if err := scanner.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}

	model := porcupine.Model{
		Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
			byKey := map[string][]porcupine.Operation{}
			var keys []string
			for _, op := range history {
				k := op.Input.(input).key
				if _, ok := byKey[k]; !ok {
					keys = append(keys, k)
				}
				byKey[k] = append(byKey[k], op)
			}
			var parts [][]porcupine.Operation
			for _, k := range keys {
				parts = append(parts, byKey[k])
			}
			return parts
		},
		Init: func() interface{} { return state{} },
		Step: step,
		Equal: func(a, b interface{}) bool { return a.(state) == b.(state) },
		DescribeOperation: func(in interface{}, out interface{}) string {
			i := in.(input)
			o := out.(output)
			res := "?"
			if !o.unknown {
				res = "nil"
				if o.value != nil {
					res = *o.value
				}
			}
			return fmt.Sprintf("%s(%s %s) -> %s", i.op, i.key, i.arg, res)
		},
		DescribeState: func(s interface{}) string {
			st := s.(state)
			if !st.present {
				return "absent"
			}
			return st.value
		},
	}

	result, info := porcupine.CheckOperationsVerbose(model, ops, *timeout)
	fmt.Printf("%d operations: %s\n", len(ops), result)
	switch result {
	case porcupine.Ok:
		os.Exit(0)
	case porcupine.Illegal:
		if *htmlPath != "" {
			if out, err := os.Create(*htmlPath); err == nil {
				porcupine.Visualize(model, info, out)
				out.Close()
				fmt.Println("visualization:", *htmlPath)
			}
		}
		os.Exit(1)
	default:
		os.Exit(2)
	}
}
