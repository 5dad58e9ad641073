/** ISO 8601 with an explicit UTC offset and milliseconds: 2026-11-23T03:10:00.123+00:00 */
export function isoNow(date = new Date()): string {
  return date.toISOString().replace('Z', '+00:00');
}
