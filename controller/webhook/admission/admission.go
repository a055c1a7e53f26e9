package admission

import "context"

// Warnings are shown to the client (kubectl prints them) whether the
// request is allowed or denied.
type Warnings []string

// Defaulter sets the defaults of a T. The handler decodes the object into a
// new T, calls Default and answers with a patch of what Default changed.
// An error denies the request (see WithDefaulter for how it is shown).
type Defaulter[T any] interface {
	Default(ctx context.Context, obj *T) error
}

// DefaulterFunc adapts a function to a Defaulter.
type DefaulterFunc[T any] func(ctx context.Context, obj *T) error

// Default calls f(ctx, obj).
func (f DefaulterFunc[T]) Default(ctx context.Context, obj *T) error { return f(ctx, obj) }

// Validator checks a T on create, update (with the old object) and delete
// (with the object being deleted). An error denies the request; warnings
// are passed on either way.
type Validator[T any] interface {
	ValidateCreate(ctx context.Context, obj *T) (Warnings, error)
	ValidateUpdate(ctx context.Context, oldObj, newObj *T) (Warnings, error)
	ValidateDelete(ctx context.Context, obj *T) (Warnings, error)
}

// ValidatorFuncs adapts functions to a Validator. A nil function allows
// its operation.
type ValidatorFuncs[T any] struct {
	Create func(ctx context.Context, obj *T) (Warnings, error)
	Update func(ctx context.Context, oldObj, newObj *T) (Warnings, error)
	Delete func(ctx context.Context, obj *T) (Warnings, error)
}

// ValidateCreate calls v.Create if it is set.
func (v ValidatorFuncs[T]) ValidateCreate(ctx context.Context, obj *T) (Warnings, error) {
	if v.Create == nil {
		return nil, nil
	}
	return v.Create(ctx, obj)
}

// ValidateUpdate calls v.Update if it is set.
func (v ValidatorFuncs[T]) ValidateUpdate(ctx context.Context, oldObj, newObj *T) (Warnings, error) {
	if v.Update == nil {
		return nil, nil
	}
	return v.Update(ctx, oldObj, newObj)
}

// ValidateDelete calls v.Delete if it is set.
func (v ValidatorFuncs[T]) ValidateDelete(ctx context.Context, obj *T) (Warnings, error) {
	if v.Delete == nil {
		return nil, nil
	}
	return v.Delete(ctx, obj)
}
