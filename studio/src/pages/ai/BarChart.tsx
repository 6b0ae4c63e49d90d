// A small bar chart in SVG, drawn here (no chart library, nothing loaded):
// one bar per label, stacked by series, with the values in its title and the
// whole summed up for assistive technology; the table under each chart on
// the page carries the same numbers.
type Props = { title: string; labels: string[]; series: Array<{ name: string; values: number[] }>; format: (v: number) => string; short?: (label: string) => string };

const COLOURS = ['var(--accent)', 'var(--focus)', 'var(--warn)', 'var(--danger)', 'var(--muted)'];

export function BarChart({ title, labels, series, format, short = (l) => l.slice(5) }: Props) {
  const totals = labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const top = Math.max(1e-9, ...totals);
  const width = Math.max(320, labels.length * 36);
  const height = 160;
  const bar = Math.min(28, (width - 20) / Math.max(1, labels.length) - 6);
  const summary = `${title}: ${labels.map((l, i) => `${l} ${format(totals[i]!)}`).join(', ') || 'nothing yet'}`;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${width} ${height + 30}`} role="img" aria-label={summary} className="bar-chart">
        <line x1={0} y1={height} x2={width} y2={height} className="axis" />
        {labels.map((label, i) => {
          let y = height;
          const x = 10 + i * ((width - 20) / labels.length);
          return (
            <g key={label}>
              {series.map((s, k) => {
                const h = ((s.values[i] ?? 0) / top) * (height - 10);
                y -= h;
                return <rect key={s.name} x={x} y={y} width={bar} height={h} fill={COLOURS[k % COLOURS.length]}><title>{`${label} · ${s.name}: ${format(s.values[i] ?? 0)}`}</title></rect>;
              })}
              <text x={x + bar / 2} y={height + 16} textAnchor="middle" className="chart-label">{short(label)}</text>
            </g>
          );
        })}
      </svg>
      <figcaption>{title}{series.length > 1 ? `: ${series.map((s, k) => `${s.name} (${['green', 'blue', 'amber', 'red', 'grey'][k % 5]})`).join(', ')}` : ''}</figcaption>
    </figure>
  );
}
