package engine

import (
	"context"

	"github.com/mnemo-dev/mnemo"
)

// resolveID returns the id of the record that ref names in sc: ref itself
// when it is not shaped like a short reference (mnemo.ShortRef) or is a
// record's whole id, else the one record visible to sc whose id ends with
// ref. A reference no record matches is returned as it is, for the
// caller's read to say ENOTFOUND; one that several match is EINVALID.
func (s *Service) resolveID(ctx context.Context, sc mnemo.Scope, ref string) (string, error) {
	if err := mnemo.ValidateID(ref); err != nil {
		return "", err
	}
	if !mnemo.IsRef(ref) {
		return ref, nil
	}
	rr, ok := s.store.(mnemo.RefResolver)
	if !ok {
		return ref, nil
	}
	if _, err := s.store.Get(ctx, sc, ref); err == nil {
		return ref, nil
	} else if mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		return "", err
	}
	ids, err := rr.IDsEndingWith(ctx, sc, ref, 2)
	if err != nil {
		return "", err
	}
	switch len(ids) {
	case 0:
		return ref, nil
	case 1:
		return ids[0], nil
	}
	return "", mnemo.Errorf(mnemo.EINVALID, "reference %s is ambiguous: more than one record's id ends with it; give the whole id", ref)
}
