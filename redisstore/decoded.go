package redisstore

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/mcpmount/mcpmount/httptransport"
)

// decodedMax bounds the records a Store keeps decoded (decodedRecords).
const decodedMax = 4096

// decodedRecords keeps the last record read of each session, as stored
// and as decoded: an instance reads a shared session's record at each of
// its requests (TouchGet), and it seldom changes, so a read that finds the
// bytes it decoded last time decodes nothing. When it holds decodedMax
// records it starts afresh.
type decodedRecords struct {
	mu   sync.Mutex
	recs map[string]decodedRecord
}

type decodedRecord struct {
	raw []byte
	rec httptransport.SessionRecord
}

// decode returns the record data holds for session id.
func (d *decodedRecords) decode(id string, data []byte) (*httptransport.SessionRecord, error) {
	d.mu.Lock()
	c, ok := d.recs[id]
	d.mu.Unlock()
	if ok && bytes.Equal(c.raw, data) {
		rec := c.rec
		return &rec, nil
	}
	rec := new(httptransport.SessionRecord)
	if err := json.Unmarshal(data, rec); err != nil {
		return nil, err
	}
	d.mu.Lock()
	if d.recs == nil || len(d.recs) >= decodedMax {
		d.recs = make(map[string]decodedRecord)
	}
	d.recs[id] = decodedRecord{raw: data, rec: *rec}
	d.mu.Unlock()
	return rec, nil
}

// forget drops session id's record.
func (d *decodedRecords) forget(id string) {
	d.mu.Lock()
	delete(d.recs, id)
	d.mu.Unlock()
}
