import type { StringMap } from '../../../../shared/model';

/** Labels or annotations, sorted by key; says "None" rather than showing nothing. */
export function KeyValueTable({ entries, label }: { entries: StringMap; label: string }) {
  const sorted = Object.entries(entries).sort(([a], [b]) => a.localeCompare(b));
  if (sorted.length === 0) return <p className="faint">None</p>;
  return (
    <table className="kv-table" aria-label={label}>
      <tbody>
        {sorted.map(([key, value]) => (
          <tr key={key}>
            <td>{key}</td>
            <td>{value === '' ? <span className="faint">(empty)</span> : value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
