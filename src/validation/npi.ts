// National Provider Identifier check: 10 digits whose last is a Luhn check digit computed over
// the number prefixed with 80840 (the ISO card-issuer prefix the NPI standard assigns).

/** Result of checkNpi: the trimmed NPI, or a code and a message. */
export type NpiResult = { ok: true; npi: string } | { ok: false; code: 'empty' | 'not_10_digits' | 'bad_check_digit'; message: string };

/** Checks an NPI: exactly 10 digits with a valid check digit. */
export function checkNpi(s: string): NpiResult {
  const npi = s.trim();
  if (npi === '') return { ok: false, code: 'empty', message: 'the NPI is empty' };
  if (!/^\d{10}$/.test(npi)) return { ok: false, code: 'not_10_digits', message: 'an NPI is exactly 10 digits' };
  if (!luhnValid('80840' + npi)) {
    return { ok: false, code: 'bad_check_digit', message: 'the NPI check digit is wrong (a digit is mistyped or swapped)' };
  }
  return { ok: true, npi };
}

// Standard Luhn: from the right, double every second digit, subtract 9 above 9; total % 10 === 0.
function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
