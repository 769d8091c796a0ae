package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// MaxErrorBody is how much of an error reply's body Post reads.
const MaxErrorBody = 1 << 20

// Client returns a copy of hc (nil: a client without a timeout, since replies stream for long)
// that follows a redirect only within base's origin (scheme, host and port), so that an API
// key in a request header never reaches another server; other redirects fail the request.
func Client(hc *http.Client, base string) (*http.Client, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("%q is not an absolute URL", base)
	}
	c := &http.Client{}
	if hc != nil {
		*c = *hc
	}
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !strings.EqualFold(req.URL.Scheme, u.Scheme) || !strings.EqualFold(req.URL.Host, u.Host) {
			return fmt.Errorf("refusing a redirect from %s to another server (%s://%s)", u.Redacted(), req.URL.Scheme, req.URL.Host)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return c, nil
}

// Post sends body as JSON to url with header. A reply with a status below 400 is returned
// for the caller to read and close. For an error status the body (up to MaxErrorBody) is read
// and returned with the response, whose Body is then closed. err is the transport's error,
// or the error of reading an error reply's body.
func Post(ctx context.Context, hc *http.Client, url string, header http.Header, body []byte) (resp *http.Response, errBody []byte, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header = header.Clone()
	resp, err = hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode < 400 {
		return resp, nil, nil
	}
	defer resp.Body.Close()
	errBody, err = io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
	if err != nil {
		return nil, nil, err
	}
	return resp, errBody, nil
}

// JSONHeader is the header every request of a provider starts from: the caller's extra headers
// (canonical keys) with Accept and Content-Type set to JSON.
func JSONHeader(extra http.Header) http.Header {
	h := http.Header{}
	for k, vs := range extra {
		h[http.CanonicalHeaderKey(k)] = vs
	}
	h.Set("Accept", "application/json")
	h.Set("Content-Type", "application/json")
	return h
}
