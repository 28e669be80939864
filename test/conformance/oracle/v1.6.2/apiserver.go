// What the apiserver does to a RayJob before the operator sees it, and to the RayCluster the
// operator creates for it, with the apiserver's own code (k8s.io/apiextensions-apiserver) over
// the CRDs of this ray-operator module (config/crd/bases/, copied in by build-oracle.sh): prune
// the fields the schema does not have, apply the schema's defaults, then the schema's
// validation (types, enums, bounds, required), its list types and its CEL rules
// (x-kubernetes-validations; transition rules do not run on a create).
package main

import (
	"context"
	_ "embed"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

//go:embed crd/ray.io_rayjobs.yaml
var rayJobCRD []byte

//go:embed crd/ray.io_rayclusters.yaml
var rayClusterCRD []byte

// crdSchema is one CRD version's schema, ready for the apiserver's pruning, defaulting and
// validation.
type crdSchema struct {
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	rules      *cel.Validator // nil when the schema has no x-kubernetes-validations
}

// loadCRD reads the schema of `version` from a CRD manifest, as the apiserver does when the CRD
// is created.
func loadCRD(manifest []byte, version string) (*crdSchema, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(manifest, &crd); err != nil {
		return nil, err
	}
	for _, v := range crd.Spec.Versions {
		if v.Name != version || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(
			v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
			return nil, err
		}
		s, err := structuralschema.NewStructural(&internal)
		if err != nil {
			return nil, fmt.Errorf("%s: not a structural schema: %v", crd.Name, err)
		}
		validator, _, err := apiservervalidation.NewSchemaValidator(&internal)
		if err != nil {
			return nil, err
		}
		return &crdSchema{structural: s, validator: validator,
			rules: cel.NewValidator(s, true, celconfig.PerCallLimit)}, nil
	}
	return nil, fmt.Errorf("%s has no schema for version %s", crd.Name, version)
}

// admit prunes and defaults obj in place and validates it, as the apiserver does on a create.
// Returns the first pruned field ("" when none) and the apiserver's refusal, if any.
func (c *crdSchema) admit(obj map[string]any) (string, error) {
	pruned := structuralpruning.PruneWithOptions(obj, c.structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	first := ""
	if len(pruned) > 0 {
		first = pruned[0]
	}
	structuraldefaulting.Default(obj, c.structural)
	errs := apiservervalidation.ValidateCustomResource(nil, obj, c.validator)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, c.structural, obj)...)
	if c.rules != nil {
		celErrs, _ := c.rules.Validate(context.Background(), nil, c.structural, obj, nil,
			celconfig.RuntimeCELCostBudget)
		errs = append(errs, celErrs...)
	}
	if len(errs) > 0 {
		return first, errs.ToAggregate()
	}
	return first, nil
}
