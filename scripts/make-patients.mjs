// Writes a deterministic patient file for sequence definition 1 of the sandbox (Appointment
// reminder: appointmentDate required; appointmentTime, clinicName, providerName optional).
// Usage: node scripts/make-patients.mjs [rows=5000] [out=fixtures/patients-5000.csv]
// Everything derives from the row index: the same arguments always give the same bytes.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const rows = Number(process.argv[2] ?? 5000);
const out = process.argv[3] ?? new URL('../fixtures/patients-5000.csv', import.meta.url).pathname;

const FIRST = ['Maria', 'James', 'Aisha', 'Robert', 'Emily', 'David', 'Sofia', 'Michael', 'Grace', 'Daniel', 'Ana', 'Omar', 'Lena', 'Tomás', 'Yuki', 'Kwame'];
const LAST = ['Lopez', 'Chen', 'Patel', 'Okafor', 'Novak', 'Kim', 'Rossi', 'Brown', 'Nguyen', 'Haddad', 'Silva', 'Farouk', "O'Neil", 'García', 'Tanaka', 'Mensah'];
const AREAS = ['415', '628', '510', '650', '408', '707', '916', '925', '209', '559'];
const CLINICS = ['North Clinic', 'Bayview Clinic', 'Mission Clinic, 2nd floor', 'Sunset Clinic'];
const PROVIDERS = ['Dr. Alvarez', 'Dr. Singh', 'Dr. Reyes', 'Dr. Okoye'];
const PHONE_FORMATS = [
  (a, n) => `(${a}) 555-${n}`,
  (a, n) => `${a}-555-${n}`,
  (a, n) => `${a}555${n}`,
  (a, n) => `+1 ${a} 555 ${n}`,
];

const q = (s) => (/[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);
const ws = createWriteStream(out);
const write = async (s) => {
  if (!ws.write(s)) await once(ws, 'drain');
};
await write('First Name,Last Name,Phone,Appointment Date,Appointment Time,Clinic Name,Provider Name\n');
const base = Date.UTC(2030, 4, 1);
for (let i = 0; i < rows; i++) {
  // Unique phone per row: area code by i mod 10, subscriber number by i div 10 (up to 100,000 rows).
  const area = AREAS[i % AREAS.length];
  const n = String(Math.floor(i / AREAS.length) % 10000).padStart(4, '0');
  const day = new Date(base + (i % 120) * 86_400_000);
  const iso = day.toISOString().slice(0, 10);
  const date = i % 3 === 0 ? `${day.getUTCMonth() + 1}/${day.getUTCDate()}/${day.getUTCFullYear()}` : iso;
  const time = `${String(8 + (i % 9)).padStart(2, '0')}:${i % 2 ? '30' : '00'}`;
  const line = [
    FIRST[i % FIRST.length],
    LAST[(i * 7) % LAST.length],
    PHONE_FORMATS[i % PHONE_FORMATS.length](area, n),
    date,
    time,
    CLINICS[i % CLINICS.length],
    PROVIDERS[(i >> 2) % PROVIDERS.length],
  ];
  await write(line.map(q).join(',') + '\n');
}
ws.end();
await once(ws, 'finish');
