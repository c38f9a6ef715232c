package xapian

import "math"

// SerialiseLatLong is Xapian::LatLongCoord(lat, lon).serialise()
// (geospatial/geoencode.cc): latitude and longitude rounded to 1/16 of a
// second of arc, packed in 6 bytes; libzim stores it in value slot 2 of
// the full-text index. ok is false for a latitude outside [-90, 90] (Xapian
// refuses it).
func SerialiseLatLong(lat, lon float64) (b []byte, ok bool) {
	if lat < -90 || lat > 90 || math.IsNaN(lat) || math.IsNaN(lon) || math.IsInf(lon, 0) {
		return nil, false
	}
	lon = math.Mod(lon, 360)
	if lon < 0 {
		lon += 360
	}
	lat16 := int(math.Round((lat + 90) * 57600))
	var lon16 int
	if lat16 != 0 && lat16 != 57600*180 {
		lon16 = int(math.Round(lon * 57600))
		if lon16 == 57600*360 {
			lon16 = 0
		}
	}
	type dms struct{ deg, min, sec, sec16 int }
	split := func(a int) dms {
		var d dms
		d.deg = a / (3600 * 16)
		a %= 3600 * 16
		d.min = a / (60 * 16)
		a %= 60 * 16
		d.sec = a / 16
		d.sec16 = a % 16
		return d
	}
	la, lo := split(lat16), split(lon16)
	dd := la.deg + lo.deg*181
	return []byte{
		byte(dd >> 8), byte(dd),
		byte(la.min/4<<4 | lo.min/4),
		byte(la.min%4<<6 | lo.min%4<<4 | la.sec/15<<2 | lo.sec/15),
		byte(la.sec%15<<4 | lo.sec%15),
		byte(la.sec16<<4 | lo.sec16),
	}, true
}
