package kernel

import (
	"context"
	"encoding/json"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
	"github.com/shoal-sh/shoal/kernel/proto"
)

// Plans need effect derivation and a Leash policy; until both are wired no plan is ever
// stored, so every lookup is honestly UNKNOWN_PLAN and the list is empty.

func unknownPlan(ref string) error {
	return jsonrpc.NewError(proto.CodeUnknownPlan, "unknown plan", map[string]string{"plan_ref": ref})
}

func (s *Server) handlePlanGet(ctx context.Context, cs *connState, a *attachment, p proto.PlanGetParams) (*proto.PlanGetResult, error) {
	return nil, unknownPlan(p.PlanRef)
}

func (s *Server) handlePlanList(ctx context.Context, cs *connState, a *attachment, _ proto.PlanListParams) (proto.PlanListResult, error) {
	return proto.PlanListResult{}, nil
}

func (s *Server) handlePlanApply(ctx context.Context, cs *connState, a *attachment, p proto.PlanApplyParams) (*proto.ExecResult, error) {
	if p.PlanRef == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: missing plan_ref")
	}
	return nil, unknownPlan(p.PlanRef)
}

func (s *Server) handleCapRequest(ctx context.Context, cs *connState, a *attachment, p proto.CapRequestParams) (*proto.CapRequestResult, error) {
	if p.PlanRef == nil || *p.PlanRef == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: missing plan_ref")
	}
	return nil, unknownPlan(*p.PlanRef)
}

// handlePTYUnavailable answers the pty.* methods until the term manager is wired: nothing is
// ever open, so lookups are UNKNOWN_PTY, the list is empty and open fails honestly.
func (s *Server) handlePTYUnavailable(ctx context.Context, cs *connState, a *attachment, p json.RawMessage) (any, error) {
	var probe struct {
		Cmd   *string `json:"cmd"`
		PTYID string  `json:"pty_id"`
	}
	_ = json.Unmarshal(p, &probe) // only used to shape the error
	switch {
	case probe.Cmd != nil:
		if *probe.Cmd == "" {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: empty cmd")
		}
		return nil, jsonrpc.NewError(proto.CodePTYSpawnFailed, "PTYs are not available in this kernel yet", map[string]string{"cmd": *probe.Cmd})
	case probe.PTYID != "":
		return nil, jsonrpc.NewError(proto.CodeUnknownPTY, "unknown pty", map[string]string{"pty_id": probe.PTYID})
	}
	return proto.PTYListResult{PTYs: []proto.PTYInfo{}}, nil
}
