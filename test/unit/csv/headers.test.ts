import { describe, expect, it } from 'vitest';
import {
  BATCH_TARGETS,
  ELIGIBILITY_TARGETS,
  MapOptionError,
  inputTargets,
  isProblemColumn,
  matchHeaders,
  normaliseHeader,
  parseMapOption,
  parseMapOptions,
} from '../../../src/csv/headers.js';

const fieldOf = (headers: string[], targets = BATCH_TARGETS) =>
  Object.fromEntries(matchHeaders(headers, targets).mapping.map((m) => [m.column, m.field]));

describe('normaliseHeader', () => {
  it.each([
    ['First Name', 'firstname'],
    ['first_name', 'firstname'],
    ['FIRST-NAME', 'firstname'],
    ['First.Name ', 'firstname'],
    ['  Phone\u00a0Number', 'phonenumber'],
  ])('%j → %j', (h, n) => expect(normaliseHeader(h)).toBe(n));
});

describe('matchHeaders: built-in batch fields', () => {
  it.each([
    ['First Name', 'firstName'],
    ['first_name', 'firstName'],
    ['FIRSTNAME', 'firstName'],
    ['firstName', 'firstName'],
    ['fname', 'firstName'],
    ['Given Name', 'firstName'],
    ['Patient First Name', 'firstName'],
    ['Last Name', 'lastName'],
    ['SURNAME', 'lastName'],
    ['family_name', 'lastName'],
    ['lname', 'lastName'],
    ['phone', 'phoneNumber'],
    ['Phone Number', 'phoneNumber'],
    ['phone_number', 'phoneNumber'],
    ['PhoneNumber', 'phoneNumber'],
    ['Mobile', 'phoneNumber'],
    ['cell', 'phoneNumber'],
    ['Telephone', 'phoneNumber'],
    ['Mobile Phone', 'phoneNumber'],
    ['mobile-phone', 'phoneNumber'],
  ])('%j → %s', (header, field) => {
    expect(fieldOf([header])).toEqual({ [header]: field });
  });

  it('maps a typical EHR export and lists what it ignores', () => {
    const r = matchHeaders(['MRN', 'Patient First Name', 'Last Name', 'Mobile Phone', 'Notes'], BATCH_TARGETS);
    expect(r.mapping).toEqual([
      { column: 'Patient First Name', index: 1, field: 'firstName' },
      { column: 'Last Name', index: 2, field: 'lastName' },
      { column: 'Mobile Phone', index: 3, field: 'phoneNumber' },
    ]);
    expect(r.ignored).toEqual(['MRN', 'Notes']);
    expect(r.missingRequired).toEqual([]);
    expect(r.duplicates).toEqual([]);
    expect(r.ambiguous).toEqual([]);
  });

  it('reports missing required fields', () => {
    const r = matchHeaders(['First Name', 'Notes'], BATCH_TARGETS);
    expect(r.missingRequired).toEqual(['lastName', 'phoneNumber']);
  });

  it('reports two columns for one field instead of picking one', () => {
    const r = matchHeaders(['First Name', 'Last Name', 'Phone', 'Mobile'], BATCH_TARGETS);
    expect(r.duplicates).toEqual([{ field: 'phoneNumber', columns: ['Phone', 'Mobile'] }]);
    expect(r.mapping.map((m) => m.field)).toEqual(['firstName', 'lastName']);
    expect(r.missingRequired).toEqual([]); // conflicted, not missing
  });

  it('ignores blank header names', () => {
    const r = matchHeaders(['First Name', '', 'Phone'], BATCH_TARGETS);
    expect(r.ignored).toEqual(['']);
  });
});

describe('matchHeaders: eligibility fields', () => {
  it.each([
    ['DOB', 'dateOfBirth'],
    ['Date of Birth', 'dateOfBirth'],
    ['birthdate', 'dateOfBirth'],
    ['Birth_Date', 'dateOfBirth'],
    ['Member ID', 'memberId'],
    ['MemberID', 'memberId'],
    ['member number', 'memberId'],
    ['Subscriber ID', 'memberId'],
    ['Insurance ID', 'memberId'],
    ['Patient ID', 'customerPatientId'],
    ['MRN', 'customerPatientId'],
    ['customer_patient_id', 'customerPatientId'],
    ['patient_id', 'customerPatientId'],
    ['Payer', 'payerId'],
    ['Payer ID', 'payerId'],
    ['payer_id', 'payerId'],
    ['Provider', 'providerName'],
    ['Provider Name', 'providerName'],
    ['Organization Name', 'providerName'],
    ['NPI', 'npi'],
    ['Provider NPI', 'npi'],
  ])('%j → %s', (header, field) => {
    expect(fieldOf([header], ELIGIBILITY_TARGETS)).toEqual({ [header]: field });
  });
});

describe('matchHeaders: definition inputs', () => {
  const inputs = inputTargets([
    { id: 'appointment_date', name: 'Appointment Date', required: true },
    { id: 'clinic', name: 'Clinic Name' },
  ]);
  const targets = [...BATCH_TARGETS, ...inputs];

  it('matches inputs by id or by name', () => {
    expect(fieldOf(['appointment_date', 'Clinic Name'], targets)).toEqual({
      appointment_date: 'appointment_date',
      'Clinic Name': 'clinic',
    });
    expect(fieldOf(['Appointment Date', 'CLINIC'], targets)).toEqual({
      'Appointment Date': 'appointment_date',
      CLINIC: 'clinic',
    });
  });

  it('reports a required input with no column', () => {
    expect(matchHeaders(['First Name', 'Last Name', 'Phone'], targets).missingRequired).toEqual(['appointment_date']);
  });

  it('reports a column matching two fields (input named like a built-in)', () => {
    const t = [...BATCH_TARGETS, ...inputTargets([{ id: 'callback', name: 'Phone' }])];
    const r = matchHeaders(['First Name', 'Last Name', 'Phone'], t);
    expect(r.ambiguous).toEqual([{ column: 'Phone', fields: ['phoneNumber', 'callback'] }]);
    expect(r.mapping.map((m) => m.field)).toEqual(['firstName', 'lastName']);
  });

  it('merges an input whose id is a built-in field', () => {
    const t = [...BATCH_TARGETS, ...inputTargets([{ id: 'firstName', name: 'Preferred Name' }])];
    expect(fieldOf(['Preferred Name'], t)).toEqual({ 'Preferred Name': 'firstName' });
  });
});

describe('matchHeaders: the problem column of a rejects file', () => {
  it('is passed over silently: not matched, not ignored, not a duplicate', () => {
    // An input called "Problems" would match "problem" loosely; the rejects column never does.
    const targets = [...BATCH_TARGETS, ...inputTargets([{ id: 'problems', name: 'Problem' }])];
    for (const name of ['problem', 'Problem', ' PROBLEM ']) {
      const r = matchHeaders(['First Name', 'Last Name', 'Phone', name], targets);
      expect(r.mapping.map((m) => m.field)).toEqual(['firstName', 'lastName', 'phoneNumber']);
      expect(r.ignored).toEqual([]);
      expect(r.duplicates).toEqual([]);
      expect(r.ambiguous).toEqual([]);
    }
    expect(matchHeaders(['Phone', 'Problems'], targets).mapping.map((m) => m.column)).toEqual(['Phone', 'Problems']);
    expect(isProblemColumn('problems')).toBe(false);
  });

  it('still takes an explicit --map', () => {
    expect(matchHeaders(['problem'], BATCH_TARGETS, { problem: 'firstName' }).mapping).toEqual([{ column: 'problem', index: 0, field: 'firstName' }]);
  });
});

describe('matchHeaders: --map overrides', () => {
  it('maps an unrecognised column', () => {
    const r = matchHeaders(['Nombre', 'Apellido', 'Tel'], BATCH_TARGETS, { Nombre: 'firstName', Apellido: 'lastName', Tel: 'phoneNumber' });
    expect(r.mapping.map((m) => m.field)).toEqual(['firstName', 'lastName', 'phoneNumber']);
    expect(r.missingRequired).toEqual([]);
  });

  it('settles a duplicate: the overridden column wins, the other is ignored', () => {
    const r = matchHeaders(['First Name', 'Last Name', 'Phone', 'Mobile'], BATCH_TARGETS, { Mobile: 'phoneNumber' });
    expect(r.duplicates).toEqual([]);
    expect(r.mapping.find((m) => m.field === 'phoneNumber')?.column).toBe('Mobile');
    expect(r.ignored).toEqual(['Phone']);
  });

  it('settles an ambiguity', () => {
    const t = [...BATCH_TARGETS, ...inputTargets([{ id: 'callback', name: 'Phone' }])];
    const r = matchHeaders(['Phone'], t, { Phone: 'callback' });
    expect(r.ambiguous).toEqual([]);
    expect(r.mapping).toEqual([{ column: 'Phone', index: 0, field: 'callback' }]);
  });

  it('"-" ignores a column', () => {
    const r = matchHeaders(['Phone', 'Mobile'], BATCH_TARGETS, { Phone: '-' });
    expect(r.mapping).toEqual([{ column: 'Mobile', index: 1, field: 'phoneNumber' }]);
    expect(r.ignored).toEqual(['Phone']);
  });

  it('matches the column and field names loosely', () => {
    const r = matchHeaders(['Cell #'], BATCH_TARGETS, { 'cell #': 'phone_number' });
    expect(r.mapping).toEqual([{ column: 'Cell #', index: 0, field: 'phoneNumber' }]);
  });

  it('reports two columns forced to one field', () => {
    const r = matchHeaders(['A', 'B'], BATCH_TARGETS, { A: 'firstName', B: 'firstName' });
    expect(r.duplicates).toEqual([{ field: 'firstName', columns: ['A', 'B'] }]);
  });

  it.each([
    [{ Nope: 'firstName' }, /column "Nope".*not in the file.*"First Name"/],
    [{ 'First Name': 'givenName' }, /field "givenName".*not known.*firstName, lastName, phoneNumber/],
  ])('rejects unknown names: %j', (overrides, message) => {
    expect(() => matchHeaders(['First Name', 'Phone'], BATCH_TARGETS, overrides)).toThrow(MapOptionError);
    expect(() => matchHeaders(['First Name', 'Phone'], BATCH_TARGETS, overrides)).toThrow(message);
  });
});

describe('parseMapOption', () => {
  it.each([
    ['Col=field', { column: 'Col', field: 'field' }],
    [' Cell Phone = phoneNumber ', { column: 'Cell Phone', field: 'phoneNumber' }],
    ['a=b=c', { column: 'a=b', field: 'c' }],
    ['Notes=-', { column: 'Notes', field: '-' }],
  ])('%j', (opt, expected) => expect(parseMapOption(opt)).toEqual(expected));

  it.each(['nofield', '=field', 'Col=', '='])('rejects %j', (opt) => {
    expect(() => parseMapOption(opt)).toThrow(MapOptionError);
  });

  it('collects repeated options and rejects a column given twice', () => {
    expect(parseMapOptions(['A=firstName', 'B=lastName'])).toEqual({ A: 'firstName', B: 'lastName' });
    expect(() => parseMapOptions(['A=firstName', 'A=lastName'])).toThrow(/twice/);
  });
});
