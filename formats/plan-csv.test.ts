/** CSV cells: quoting (RFC 4180) and formula injection (OWASP: a leading quote before = + - @ tab CR). */
import { describe, expect, it } from 'vitest';
import { csvCell } from './plan-csv.ts';

describe('csvCell', () => {
  it('prefixes text that starts like a formula with a single quote', () => {
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-North')).toBe("'-North");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('\rx')).toBe(`"'\rx"`);
    expect(csvCell('=HYPERLINK("u","t")')).toBe(`"'=HYPERLINK(""u"",""t"")"`);
  });

  it('writes numbers (negative ones too), booleans and empty cells as they are; quotes commas and quotes', () => {
    expect(csvCell(-3.5)).toBe('-3.5');
    expect(csvCell(true)).toBe('true');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell('North field')).toBe('North field');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
  });
});
