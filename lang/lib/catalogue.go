package lib

import (
	"github.com/shoal-sh/shoal/lang/value"
)

// The method catalogue: the single list of method names per kind, read by
// Method (dispatch), HasMethod (the field → method fallback) and
// UnknownMethodHint (nearest-name suggestions). A nil entry is a method
// the evaluator implements because it needs the host (filesystem, tasks,
// processes, the terminal); it is listed so that the fallback and the
// hints know the name exists.
type methodTable map[string]method

// everyValue is answered by every kind.
var everyValue = methodTable{
	"json":    anyJSON,
	"str":     anyStr,
	"display": anyDisplay,
	"tap":     nil,
	"also":    nil,
	"save":    nil,
	"append":  nil,
	"feed":    nil,
	"pick":    nil,
}

// collectionMethods serve lists, tables and ranges, and bounded streams
// after collecting them.
var collectionMethods = methodTable{
	"len":       collLen,
	"count":     collLen,
	"is_empty":  collIsEmpty,
	"first":     firstLast(false),
	"last":      firstLast(true),
	"collect":   collCollect,
	"stream":    collStream,
	"tee":       collTee,
	"map":       collMap,
	"each":      collEach,
	"flat_map":  collFlatMap,
	"where":     collWhere,
	"filter":    collWhere,
	"find":      collFind,
	"any":       anyAll(true),
	"all":       anyAll(false),
	"reduce":    collReduce,
	"fold":      collReduce,
	"sort":      collSort,
	"sort_by":   collSort,
	"reverse":   collReverse,
	"uniq":      collUniq,
	"sum":       collSum,
	"min":       extreme(-1),
	"max":       extreme(+1),
	"flatten":   collFlatten,
	"enumerate": collEnumerate,
	"skip":      skipTake(false),
	"take":      skipTake(true),
	"chunks":    collChunks,
	"zip":       collZip,
	"group":     collGroup,
	"group_by":  collGroup,
	"join":      collJoin,
	"contains":  collContains,
	"get":       collGet,
}

var strMethods = methodTable{
	"len":         strLen,
	"count":       strLen,
	"is_empty":    strIsEmpty,
	"lines":       strLines,
	"words":       strWords,
	"chars":       strChars,
	"trim":        strTrim,
	"upper":       strUpper,
	"lower":       strLower,
	"split":       strSplit,
	"starts_with": strStartsWith,
	"ends_with":   strEndsWith,
	"contains":    strContains,
	"replace":     strReplace,
	"matches":     strMatches,
	"match":       strMatch,
	"parse_int":   strParseInt,
	"parse_float": strParseFloat,
	"take":        strSkipTake(true),
	"skip":        strSkipTake(false),
	"reverse":     strReverse,
	"stream":      textStream,
}

var recordMethods = methodTable{
	"keys":     recKeys,
	"values":   recValues,
	"items":    recItems,
	"get":      recGet,
	"set":      recSet,
	"merge":    recMerge,
	"contains": recContains,
	"len":      recLen,
	"count":    recLen,
	"is_empty": recIsEmpty,
}

var numMethods = methodTable{
	"abs":   numAbs,
	"round": numRoundHalf,
	"floor": numFloor,
	"ceil":  numCeil,
}

var bytesMethods = methodTable{
	"len":      bytesLen,
	"count":    bytesLen,
	"is_empty": bytesIsEmpty,
	"stream":   textStream,
	"ref":      bytesRef,
	"load":     bytesLoad,
	"bytes":    bytesLoad,
}

// streamMethods are the lazy combinators and the sinks that do not
// collect; every collection method is also available on a bounded stream
// (Method collects first).
var streamMethods = methodTable{
	"map":        streamMap,
	"where":      streamWhere,
	"filter":     streamWhere,
	"scan":       streamScan,
	"flat_map":   streamFlatMap,
	"take":       streamTake,
	"take_until": streamTakeUntil,
	"dedupe":     streamDedupe,
	"distinct":   streamDistinct,
	"debounce":   streamDebounce,
	"throttle":   streamThrottle,
	"window":     streamWindow,
	"buffer":     streamBuffer,
	"enumerate":  streamEnumerate,
	"merge":      streamMerge,
	"zip":        streamZip,
	"collect":    streamCollect,
	"each":       streamEach,
	"tee":        streamTee,
	"stream":     streamSelf,
	"into":       nil,
	"render":     nil,
}

// Host-implemented kinds: only the names, for HasMethod and the hints.
var (
	pathMethods = methodTable{
		"name": nil, "stem": nil, "ext": nil, "parent": nil, "join": nil, "abs": nil,
		"read": nil, "read_bytes": nil, "lines": nil, "exists": nil, "is_dir": nil,
		"is_file": nil, "size": nil, "modified": nil,
	}
	globMethods    = methodTable{"pattern": nil, "expand": nil}
	taskMethods    = methodTable{"await": nil, "wait": nil, "cancel": nil, "is_done": nil, "suspend": nil, "resume": nil, "is_suspended": nil}
	outcomeMethods = methodTable{"stdout": nil, "stderr": nil}
)

// hostCollection is the collection catalogue seen through a glob: the
// evaluator expands the glob and then calls Method on the list, so for a
// glob receiver these names are host entries.
var hostCollection = func() methodTable {
	t := make(methodTable, len(collectionMethods))
	for k := range collectionMethods {
		t[k] = nil
	}
	return t
}()

// catalogue lists, per kind, the tables searched in order.
var catalogue = map[value.Kind][]methodTable{
	value.KNull:     {everyValue},
	value.KBool:     {everyValue},
	value.KInt:      {numMethods, everyValue},
	value.KFloat:    {numMethods, everyValue},
	value.KStr:      {strMethods, everyValue},
	value.KPath:     {pathMethods, everyValue},
	value.KGlob:     {globMethods, hostCollection, everyValue},
	value.KRegex:    {everyValue},
	value.KSize:     {everyValue},
	value.KDuration: {everyValue},
	value.KDatetime: {everyValue},
	value.KTime:     {everyValue},
	value.KBytes:    {bytesMethods, everyValue},
	value.KList:     {collectionMethods, everyValue},
	value.KRecord:   {recordMethods, everyValue},
	value.KTable:    {collectionMethods, everyValue},
	value.KRange:    {collectionMethods, everyValue},
	value.KStream:   {streamMethods, everyValue, collectionMethods},
	value.KError:    {everyValue},
	value.KOutcome:  {outcomeMethods, everyValue},
	value.KTask:     {taskMethods, everyValue},
	value.KClosure:  {everyValue},
	value.KCommand:  {everyValue},
	value.KSecret:   {everyValue},
}

// lookup finds name among kind k's tables. found reports whether the name
// exists; fn is nil for host methods.
func lookup(k value.Kind, name string) (fn method, found bool) {
	for _, t := range catalogue[k] {
		if f, ok := t[name]; ok {
			return f, true
		}
	}
	return nil, false
}

// generalName reports whether some kind implements name in this package:
// calling it on a kind that lacks it is then a type error (`5.len()`,
// `{a: 1}.first()`, `5kb.abs()`), not an unknown method.
func generalName(name string) bool {
	for _, t := range []methodTable{collectionMethods, strMethods, recordMethods, numMethods, bytesMethods, streamMethods, everyValue} {
		if f, ok := t[name]; ok && f != nil {
			return true
		}
	}
	return false
}

// names returns every method name of kind k.
func names(k value.Kind) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range catalogue[k] {
		for n := range t {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}
