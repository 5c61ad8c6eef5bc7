package auth

import (
	"net/http"
	"strings"
)

// Metadata is a protected resource metadata document ready to route on any
// router (gin, chi, http.ServeMux): the paths clients fetch it at, the
// handler that serves it, and the URL that challenges point to. Build it
// with NewMetadata; its fields are read-only after that.
type Metadata struct {
	// URL is the absolute URL of the document at the resource's path-aware
	// well-known path (MetadataURL), for Options.ResourceMetadataURL.
	URL string
	// Paths are the request paths to route to Handler for GET, HEAD and
	// OPTIONS: the path-aware well-known path of the resource (RFC 9728
	// section 3.1) first and, when it differs, the root one,
	// WellKnownPrefix, so that clients of every MCP revision find the
	// document. They keep the resource path's percent-encoding.
	Paths []string
	// Handler serves the document (MetadataHandler).
	Handler http.Handler
}

// NewMetadata validates md and returns where and how to serve it. With
// net/http's ServeMux, Mount does the routing; with another router,
// route each of Paths to Handler:
//
//	meta, err := auth.NewMetadata(&auth.ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{issuer}})
//	requireBearer := auth.RequireBearer(verifier, &auth.Options{ResourceMetadataURL: meta.URL})
//	for _, p := range meta.Paths {
//		r.Handle(p, meta.Handler) // chi; gin: r.Match(methods, p, gin.WrapH(meta.Handler))
//	}
//
// It returns an error when md fails Validate.
func NewMetadata(md *ProtectedResourceMetadata) (*Metadata, error) {
	h, err := newMetadataHandler(md)
	if err != nil {
		return nil, err
	}
	url, err := MetadataURL(md.Resource)
	if err != nil {
		return nil, err
	}
	pathAware, err := WellKnownPath(md.Resource)
	if err != nil {
		return nil, err
	}
	paths := []string{pathAware}
	if pathAware != WellKnownPrefix {
		paths = append(paths, WellKnownPrefix)
	}
	return &Metadata{URL: url, Paths: paths, Handler: h}, nil
}

// resourcePath is the part of a well-known path after WellKnownPrefix: the
// resource's escaped path, "" for a resource at the root.
func resourcePath(wellKnown string) string {
	return strings.TrimPrefix(wellKnown, WellKnownPrefix)
}
