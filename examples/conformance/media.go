package main

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
)

// The conformance scenarios only check that image and audio content carry
// data and a MIME type, so the fixtures generate the smallest well-formed
// files at start-up instead of embedding opaque blobs.

// redPixelPNG returns a 1x1 opaque red PNG.
func redPixelPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 0xff, A: 0xff})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err) // cannot happen for an in-memory 1x1 image
	}
	return buf.Bytes()
}

// toneWAV returns a short mono 16-bit PCM WAV file: 100 ms of a 440 Hz tone
// at 8 kHz.
func toneWAV() []byte {
	const (
		sampleRate = 8000
		samples    = sampleRate / 10
		channels   = 1
		bits       = 16
	)
	pcm := make([]int16, samples)
	for i := range pcm {
		pcm[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/sampleRate))
	}
	dataLen := uint32(samples * channels * bits / 8)

	var buf bytes.Buffer
	w := func(v any) { _ = binary.Write(&buf, binary.LittleEndian, v) }
	buf.WriteString("RIFF")
	w(uint32(36 + dataLen))
	buf.WriteString("WAVE")
	buf.WriteString("fmt ")
	w(uint32(16))                               // fmt chunk size
	w(uint16(1))                                // PCM
	w(uint16(channels))                         // channels
	w(uint32(sampleRate))                       // sample rate
	w(uint32(sampleRate * channels * bits / 8)) // byte rate
	w(uint16(channels * bits / 8))              // block align
	w(uint16(bits))                             // bits per sample
	buf.WriteString("data")
	w(dataLen)
	w(pcm)
	return buf.Bytes()
}
