package effects

import (
	"cmp"
	"maps"
	"slices"

	"github.com/shoal-sh/shoal/leash"
)

// Wildcards used in effect payloads for what is not known statically.
const (
	// Anywhere is the path of an fs effect whose target is computed at
	// run time. Only a grant that covers every absolute path ("/**", "*")
	// matches it, so an unknown path is never allowed by a grant a literal
	// path would have needed.
	Anywhere = "/**"
	// AnyName is the name of an env or secret effect whose name is
	// computed; only a "*" grant lists it.
	AnyName = "*"
	// AnyHost is the host of a net_connect whose URL is computed; only a
	// "*" host glob matches it. Its port is 0, matched only by ":*".
	AnyHost = "*"
)

type spawnKey struct{ argv0, hash string }

type netKey struct {
	host string
	port int
}

// collector accumulates effects in any order and emits them merged and
// sorted, so the same program always yields the same plan.
type collector struct {
	paths     map[leash.Kind]map[string]bool // fs_read, fs_write, trash fs_delete
	permanent map[string]bool                // fs_delete bypassing the trash
	names     map[leash.Kind]map[string]bool // env_read, env_write, secret_use
	spawns    map[spawnKey]bool
	connects  map[netKey]bool
	listens   map[int]bool
	flags     map[leash.Kind]bool // session_write, journal_read, time, opaque
}

func newCollector() *collector {
	return &collector{
		paths:     map[leash.Kind]map[string]bool{},
		permanent: map[string]bool{},
		names:     map[leash.Kind]map[string]bool{},
		spawns:    map[spawnKey]bool{},
		connects:  map[netKey]bool{},
		listens:   map[int]bool{},
		flags:     map[leash.Kind]bool{},
	}
}

func (c *collector) path(k leash.Kind, p string) {
	if c.paths[k] == nil {
		c.paths[k] = map[string]bool{}
	}
	c.paths[k][p] = true
}

func (c *collector) deletePermanent(p string) { c.permanent[p] = true }

func (c *collector) name(k leash.Kind, n string) {
	if c.names[k] == nil {
		c.names[k] = map[string]bool{}
	}
	c.names[k][n] = true
}

func (c *collector) spawn(argv0, hash string) { c.spawns[spawnKey{argv0, hash}] = true }

func (c *collector) connect(host string, port int) { c.connects[netKey{host, port}] = true }

func (c *collector) flag(k leash.Kind) { c.flags[k] = true }

// effects returns the merged plan in [leash.Kinds] order. Paths and names
// are sorted and a wildcard absorbs the rest of its list (a grant that
// admits the wildcard admits every member). fs_delete splits into the
// trash-backed effect and the permanent one so the plan shows which paths
// cannot be undone; proc_spawn is one effect per argv0 and hash, network
// effects one per endpoint.
func (c *collector) effects() []leash.Effect {
	out := []leash.Effect{}
	for _, k := range leash.Kinds {
		switch k {
		case leash.KindFsRead, leash.KindFsWrite:
			if ps := sortedSet(c.paths[k], Anywhere); ps != nil {
				out = append(out, leash.Effect{Kind: k, Paths: ps})
			}
		case leash.KindFsDelete:
			if ps := sortedSet(c.paths[k], Anywhere); ps != nil {
				out = append(out, leash.Effect{Kind: k, Paths: ps})
			}
			if ps := sortedSet(c.permanent, Anywhere); ps != nil {
				out = append(out, leash.Effect{Kind: k, Paths: ps, Permanent: true})
			}
		case leash.KindProcSpawn:
			keys := slices.Collect(maps.Keys(c.spawns))
			slices.SortFunc(keys, func(a, b spawnKey) int {
				return cmp.Or(cmp.Compare(a.argv0, b.argv0), cmp.Compare(a.hash, b.hash))
			})
			for _, s := range keys {
				out = append(out, leash.Effect{Kind: k, Argv0: s.argv0, BinHash: s.hash})
			}
		case leash.KindNetConnect:
			keys := slices.Collect(maps.Keys(c.connects))
			slices.SortFunc(keys, func(a, b netKey) int {
				return cmp.Or(cmp.Compare(a.host, b.host), cmp.Compare(a.port, b.port))
			})
			for _, n := range keys {
				out = append(out, leash.Effect{Kind: k, Host: n.host, Port: n.port})
			}
		case leash.KindNetListen:
			ports := slices.Sorted(maps.Keys(c.listens))
			for _, p := range ports {
				out = append(out, leash.Effect{Kind: k, Port: p})
			}
		case leash.KindEnvRead, leash.KindEnvWrite, leash.KindSecretUse:
			if ns := sortedSet(c.names[k], AnyName); ns != nil {
				out = append(out, leash.Effect{Kind: k, Names: ns})
			}
		default:
			if c.flags[k] {
				out = append(out, leash.Effect{Kind: k})
			}
		}
	}
	return out
}

// sortedSet returns the set's members sorted, just [wild] when it holds
// the wildcard, or nil when it is empty.
func sortedSet(set map[string]bool, wild string) []string {
	if len(set) == 0 {
		return nil
	}
	if set[wild] {
		return []string{wild}
	}
	return slices.Sorted(maps.Keys(set))
}
