#!/usr/bin/python3
"""A stand-in for BlueZ (bluetoothd) on a private D-Bus, for tscope's end-to-end tests.

It owns the name org.bluez on the bus given with --bus and exposes the real
interfaces a BlueZ client uses: org.freedesktop.DBus.ObjectManager at /,
org.bluez.Adapter1 (hci0: discovery), org.bluez.Device1 (Connect,
ServicesResolved), org.bluez.GattService1 and org.bluez.GattCharacteristic1
(StartNotify, WriteValue, ReadValue; each notification one PropertiesChanged
"Value"), and org.freedesktop.DBus.Properties on every object. Three devices
turn up when discovery starts:

  Kardia-ECG          C0:FF:EE:00:00:01  the Kardia-style board: MIT-BIH 100 (MLII, mV) as
                                         float32 notifications at 360 Hz
  Polar H10 8AA87D20  C0:FF:EE:00:00:02  Heart Rate Service and Polar PMD: ECG frames (73
                                         samples of 3 bytes, µV) of a real H10 excerpt at 130 Hz
  HRM-Strap           C0:FF:EE:00:00:03  Heart Rate Service: RR intervals of an AFDB excerpt,
                                         with flags that change from one notification to the next

Every stream sends one malformed notification (too short for its profile) after
its fifth. --speed plays faster than real time; --drop-link-after S drops each
connection once, S seconds after it started streaming (Connected false), and
lets the client connect again; --loop plays the board's minute over and over
(the Polar excerpt always loops); --stream-seconds S ends each stream after S s
of data (rounded up to a whole notification); a dropped link, a stream's end and a client's Disconnect
each write "NAME: what: sent N samples" to stderr; --needs-pairing refuses notifications to a
device that is not paired (NotPermitted, as BlueZ does for an encrypted
characteristic). Test-time only (python3-dbus, GLib); tscope
itself never runs Python.
"""

import argparse
import os
import signal
import struct
import sys
import time

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

BLUEZ = "org.bluez"
OM = "org.freedesktop.DBus.ObjectManager"
PROPS = "org.freedesktop.DBus.Properties"
ADAPTER = "org.bluez.Adapter1"
DEVICE = "org.bluez.Device1"
SERVICE = "org.bluez.GattService1"
CHAR = "org.bluez.GattCharacteristic1"

KARDIA_SERVICE = "713d0000-503e-4c75-ba94-3148f18d941e"
KARDIA_DATA = "713d0002-503e-4c75-ba94-3148f18d941e"
HRS_SERVICE = "0000180d-0000-1000-8000-00805f9b34fb"
HRS_MEASUREMENT = "00002a37-0000-1000-8000-00805f9b34fb"
PMD_SERVICE = "fb005c80-02e7-f387-1cad-8acd2d8df0c8"
PMD_CONTROL = "fb005c81-02e7-f387-1cad-8acd2d8df0c8"
PMD_DATA = "fb005c82-02e7-f387-1cad-8acd2d8df0c8"


class Failed(dbus.DBusException):
    _dbus_error_name = "org.bluez.Error.Failed"


class NotReady(dbus.DBusException):
    _dbus_error_name = "org.bluez.Error.NotReady"


class NotConnected(dbus.DBusException):
    _dbus_error_name = "org.bluez.Error.NotConnected"


class NotPermitted(dbus.DBusException):
    _dbus_error_name = "org.bluez.Error.NotPermitted"


def read_mitdb_mlii(path, seconds):
    """Format 212, two signals: the first (MLII), in mV (gain 200, baseline 1024)."""
    data = open(path, "rb").read()
    values = []
    for offset in range(0, min(len(data), seconds * 360 * 3) - 2, 3):
        b0, b1 = data[offset], data[offset + 1]
        first = b0 | ((b1 & 0x0F) << 8)
        if first >= 2048:
            first -= 4096
        values.append((first - 1024) / 200.0)
    return values


def read_polar_csv(path):
    values = []
    for line in open(path, encoding="utf-8"):
        parts = line.strip().split(",")
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            values.append(int(parts[1]))
    return values


def read_beats(path):
    return [int(line) for line in open(path) if line.strip() and not line.startswith("#")]


class Properties(dbus.service.Object):
    """An object with BlueZ interfaces and the Properties interface over them."""

    def __init__(self, bus, path, interfaces):
        self.path = path
        self.interfaces = interfaces  # interface -> dict of properties
        super().__init__(bus, path)

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        try:
            return self.interfaces[interface][name]
        except KeyError:
            raise dbus.exceptions.DBusException("no property %s.%s" % (interface, name),
                                                name="org.freedesktop.DBus.Error.InvalidArgs")

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return self.interfaces.get(interface, {})

    @dbus.service.method(PROPS, in_signature="ssv")
    def Set(self, interface, name, value):
        self.interfaces[interface][name] = value
        self.PropertiesChanged(interface, {name: value}, [])

    @dbus.service.signal(PROPS, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    def change(self, interface, **changed):
        self.interfaces[interface].update(changed)
        self.PropertiesChanged(interface, changed, dbus.Array([], signature="s"))


class Root(dbus.service.Object):
    def __init__(self, bus, standin):
        self.standin = standin
        super().__init__(bus, "/")

    @dbus.service.method(OM, out_signature="a{oa{sa{sv}}}")
    def GetManagedObjects(self):
        return {obj.path: obj.interfaces for obj in self.standin.objects.values()}

    @dbus.service.signal(OM, signature="oa{sa{sv}}")
    def InterfacesAdded(self, path, interfaces):
        pass

    @dbus.service.signal(OM, signature="oas")
    def InterfacesRemoved(self, path, interfaces):
        pass


class Adapter(Properties):
    def __init__(self, bus, standin, powered):
        self.standin = standin
        super().__init__(bus, "/org/bluez/hci0", {ADAPTER: {
            "Address": "00:1A:7D:DA:71:13", "Name": "standin", "Alias": "standin",
            "Powered": dbus.Boolean(powered), "Discovering": dbus.Boolean(False)}})

    @dbus.service.method(ADAPTER)
    def StartDiscovery(self):
        if not self.interfaces[ADAPTER]["Powered"]:
            raise NotReady("Resource Not Ready")
        self.change(ADAPTER, Discovering=dbus.Boolean(True))
        GLib.timeout_add(100, self.standin.advertise)

    @dbus.service.method(ADAPTER)
    def StopDiscovery(self):
        self.change(ADAPTER, Discovering=dbus.Boolean(False))

    @dbus.service.method(ADAPTER, in_signature="a{sv}")
    def SetDiscoveryFilter(self, options):
        pass


class Characteristic(Properties):
    def __init__(self, bus, device, path, service_path, uuid, flags):
        self.device = device
        self.notifying_since = None
        super().__init__(bus, path, {CHAR: {
            "UUID": uuid, "Service": dbus.ObjectPath(service_path),
            "Value": dbus.Array([], signature="y"), "Notifying": dbus.Boolean(False),
            "Flags": dbus.Array(flags, signature="s")}})

    @dbus.service.method(CHAR)
    def StartNotify(self):
        if not self.device.connected():
            raise NotConnected("Not Connected")
        if self.device.standin.needs_pairing and not self.device.interfaces[DEVICE]["Paired"]:
            # what BlueZ answers when the characteristic wants an encrypted (bonded) link
            raise NotPermitted("Insufficient authentication")
        self.change(CHAR, Notifying=dbus.Boolean(True))
        self.device.notify_started(self)

    @dbus.service.method(CHAR)
    def StopNotify(self):
        self.change(CHAR, Notifying=dbus.Boolean(False))

    @dbus.service.method(CHAR, in_signature="a{sv}", out_signature="ay")
    def ReadValue(self, options):
        value = self.interfaces[CHAR]["Value"]
        # a read emits a PropertiesChanged "Value" too, as BlueZ does
        self.change(CHAR, Value=value)
        return value

    @dbus.service.method(CHAR, in_signature="aya{sv}")
    def WriteValue(self, value, options):
        if not self.device.connected():
            raise NotConnected("Not Connected")
        self.device.written(self, bytes(value))

    def send(self, payload):
        if self.interfaces[CHAR]["Notifying"]:
            self.change(CHAR, Value=dbus.Array(payload, signature="y"))


class Device(Properties):
    """One peripheral: its GATT objects appear when it connects (ServicesResolved)."""

    def __init__(self, bus, standin, index, name, services, player):
        self.bus = bus
        self.standin = standin
        self.player = player
        self.services = services  # [(service uuid, [(char uuid, flags)])]
        self.address = "C0:FF:EE:00:00:%02X" % index
        self.gatt = []
        self.dropped = False
        self.extras = {}  # characteristic UUID -> the player of a second profile
        # after a drop the device stays out of range this long (--unreachable-for)
        self.unreachable_until = 0.0
        player.device = self
        super().__init__(bus, "/org/bluez/hci0/dev_" + self.address.replace(":", "_"), {DEVICE: {
            "Address": self.address, "AddressType": "random", "Name": name, "Alias": name,
            "Adapter": dbus.ObjectPath("/org/bluez/hci0"), "Paired": dbus.Boolean(False),
            "Connected": dbus.Boolean(False), "ServicesResolved": dbus.Boolean(False),
            "UUIDs": dbus.Array([uuid for uuid, _ in services], signature="s"),
            "RSSI": dbus.Int16(-50 - 7 * index)}})

    def connected(self):
        return bool(self.interfaces[DEVICE]["Connected"])

    @dbus.service.method(DEVICE, async_callbacks=("reply", "error"))
    def Connect(self, reply, error):
        if self.connected():
            reply()
            return
        away = self.unreachable_until - time.monotonic()
        if away > 0:
            # out of range: BlueZ gives up on the attempt after a few seconds
            def give_up():
                error(Failed("le-connection-abort-by-local"))
                return False
            GLib.timeout_add(int(min(away, 4.0) * 1000), give_up)
            return
        self.change(DEVICE, Connected=dbus.Boolean(True))
        GLib.timeout_add(50, self.resolve)
        reply()

    @dbus.service.method(DEVICE)
    def Disconnect(self):
        # the client hung up: the next connection plays from the start again
        self.report("client disconnected")
        self.drop()
        self.player.reset()
        for extra in self.extras.values():
            extra.reset()

    def resolve(self):
        if not self.gatt:
            for number, (service_uuid, chars) in enumerate(self.services):
                service_path = "%s/service%04x" % (self.path, 0x10 * (number + 1))
                service = Properties(self.bus, service_path, {SERVICE: {
                    "UUID": service_uuid, "Primary": dbus.Boolean(True), "Device": dbus.ObjectPath(self.path)}})
                self.standin.add(service)
                for offset, (char_uuid, flags) in enumerate(chars):
                    char_path = "%s/char%04x" % (service_path, 0x10 * (number + 1) + offset + 1)
                    self.standin.add(Characteristic(self.bus, self, char_path, service_path, char_uuid, flags))
                    self.gatt.append(char_path)
        self.change(DEVICE, ServicesResolved=dbus.Boolean(True))
        return False

    def drop(self):
        self.player.stop()
        for extra in self.extras.values():
            extra.stop()
        for path in self.gatt:
            char = self.standin.objects[path]
            char.interfaces[CHAR]["Notifying"] = dbus.Boolean(False)
        self.change(DEVICE, ServicesResolved=dbus.Boolean(False))
        self.change(DEVICE, Connected=dbus.Boolean(False))

    def char(self, uuid):
        for path in self.gatt:
            if self.standin.objects[path].interfaces[CHAR]["UUID"] == uuid:
                return self.standin.objects[path]
        return None

    def notify_started(self, char):
        # a second profile's stream (the H10's Heart Rate Service) has a player of its own
        extra = self.extras.get(char.interfaces[CHAR]["UUID"])
        (extra or self.player).notify_started(char)

    def written(self, char, value):
        self.player.written(char, value)

    def maybe_drop(self):
        """Drops the link once, --drop-link-after seconds into a stream."""
        if self.standin.drop_after is None or self.dropped or self.player.started is None:
            return
        if time.monotonic() - self.player.started >= self.standin.drop_after:
            self.dropped = True
            self.report("link dropped")
            self.unreachable_until = time.monotonic() + self.standin.unreachable_for
            self.drop()

    def report(self, what):
        """One line on stderr: what the stream has sent so far (Tools/bench-ble reads it)."""
        sys.stderr.write("%s: %s: sent %d samples\n" % (self.interfaces[DEVICE]["Name"], what, self.player.position))
        sys.stderr.flush()


class Player:
    """Sends a profile's notifications paced by the clock: all that are due at each tick."""

    def __init__(self, speed, rate, per_notification):
        self.speed = speed
        self.rate = rate
        self.per_notification = per_notification
        self.device = None
        self.started = None
        self.sent = 0  # notifications sent since the start of the data
        self.position = 0  # units of the data sent
        self.timer = None
        self.malformed_sent = False
        self.limit = None  # samples after which the stream ends (--stream-seconds)

    def begin(self, char):
        self.stop()
        self.char = char
        self.started = time.monotonic()
        self.sent_at_start = self.position
        self.timer = GLib.timeout_add(10, self.tick)

    def reset(self):
        self.position = 0
        self.sent = 0
        self.malformed_sent = False
        self.started = None
        self.reset_data()

    def reset_data(self):
        pass

    def stop(self):
        if self.timer is not None:
            GLib.source_remove(self.timer)
            self.timer = None

    def tick(self):
        elapsed = (time.monotonic() - self.started) * self.speed
        due = self.sent_at_start + int(elapsed * self.rate)
        while self.position + self.per_notification <= due and self.timer is not None:
            if self.limit is not None and self.position >= self.limit:
                self.timer = None
                self.device.report("stream ended")
                return False
            payload = self.next_payload()
            if payload is None:
                self.timer = None
                return False
            self.char.send(payload)
            self.sent += 1
            if self.sent == 5 and not self.malformed_sent:
                self.malformed_sent = True
                self.char.send(self.malformed())
        self.device.maybe_drop()
        return self.timer is not None

    def notify_started(self, char):
        pass

    def written(self, char, value):
        pass


class KardiaPlayer(Player):
    def __init__(self, speed, samples, loop=False):
        super().__init__(speed, 360.0, 18)
        self.samples = samples
        self.loop = loop

    def notify_started(self, char):
        if char.interfaces[CHAR]["UUID"] == KARDIA_DATA:
            self.begin(char)

    def next_payload(self):
        if self.loop:
            # the excerpt over and over (its 21,600 samples are a whole number of notifications)
            start = self.position % len(self.samples)
            chunk = self.samples[start:start + self.per_notification]
            self.position += len(chunk)
            return list(struct.pack("<%df" % len(chunk), *chunk))
        chunk = self.samples[self.position:self.position + self.per_notification]
        if len(chunk) < self.per_notification:
            return None
        self.position += len(chunk)
        return list(struct.pack("<%df" % len(chunk), *chunk))

    def malformed(self):
        return [0x00, 0x00, 0x80]


class PolarPlayer(Player):
    """PMD: the start request on the control point, answered there with 0xF0; then ECG frames."""

    def __init__(self, speed, microvolts):
        super().__init__(speed, 130.0, 73)
        self.microvolts = microvolts
        self.timestamp = 599622176564550314  # ns, the sensor's clock (from a published frame)

    def written(self, char, value):
        if char.interfaces[CHAR]["UUID"] != PMD_CONTROL:
            return
        if value == bytes([0x02, 0x00, 0x00, 0x01, 0x82, 0x00, 0x01, 0x01, 0x0E, 0x00]):
            char.send([0xF0, 0x02, 0x00, 0x00, 0x00, 0x00])
            data = self.device.char(PMD_DATA)
            if data is not None and data.interfaces[CHAR]["Notifying"]:
                self.begin(data)
        elif value[:1] == b"\x03":
            char.send([0xF0, 0x03, 0x00, 0x00, 0x00])
            self.stop()
        else:
            char.send([0xF0, value[0] if value else 0, 0x00, 0x05, 0x00])  # invalid parameter

    def next_payload(self):
        count = self.per_notification
        frame = [self.microvolts[(self.position + i) % len(self.microvolts)] for i in range(count)]
        self.position += count
        self.timestamp += int(count * 1e9 / 130)
        payload = [0x00] + list(struct.pack("<Q", self.timestamp)) + [0x00]
        for value in frame:
            payload += list(struct.pack("<i", value)[:3])
        return payload

    def malformed(self):
        return [0x00, 0x01, 0x02, 0x03, 0x04, 0x05]


class StrapPlayer(Player):
    """HRS: one notification per beat, the RR intervals in 1/1024 s; the flags vary."""

    def __init__(self, speed, beats, beat_rate):
        super().__init__(speed, 1.0, 1)
        self.rr = [round((b - a) * 1024 / beat_rate) for a, b in zip(beats, beats[1:])]
        self.times = []
        total = 0.0
        for interval in self.rr:
            total += interval / 1024
            self.times.append(total)

    def notify_started(self, char):
        if char.interfaces[CHAR]["UUID"] == HRS_MEASUREMENT:
            self.begin(char)

    def tick(self):
        elapsed = (time.monotonic() - self.started) * self.speed
        while self.timer is not None and self.position < len(self.rr) and \
                self.times[self.position] - (self.times[self.sent_at_start - 1] if self.sent_at_start else 0) <= elapsed:
            self.char.send(self.payload(self.position))
            self.position += 1
            self.sent += 1
            if self.sent == 5 and not self.malformed_sent:
                self.malformed_sent = True
                self.char.send([0x11, 0x48])  # a 16-bit rate cut short
        if self.position >= len(self.rr):
            self.timer = None
            return False
        self.device.maybe_drop()
        return self.timer is not None

    def payload(self, index):
        interval = self.rr[index]
        rate = max(1, round(60 * 1024 / interval))
        form = index % 4
        if form == 0:  # 8-bit rate, contact detected, RR
            return [0x16, rate & 0xFF] + list(struct.pack("<H", interval))
        if form == 1:  # 16-bit rate, RR
            return [0x11] + list(struct.pack("<HH", rate, interval))
        if form == 2:  # 8-bit rate, energy expended, RR
            return [0x18, rate & 0xFF] + list(struct.pack("<HH", 120 + index, interval))
        # 16-bit rate, contact supported and detected, energy, RR
        return [0x1F] + list(struct.pack("<HHH", rate, 120 + index, interval))


class StandIn:
    def __init__(self, bus, args):
        self.bus = bus
        self.objects = {}
        self.drop_after = args.drop_link_after
        self.unreachable_for = args.unreachable_for
        self.needs_pairing = args.needs_pairing
        self.root = Root(bus, self)
        self.adapter = Adapter(bus, self, not args.powered_off)
        self.objects[self.adapter.path] = self.adapter
        self.pending = []
        if args.no_adapter:
            del self.objects[self.adapter.path]
            self.adapter.remove_from_connection()
        hrs = (HRS_SERVICE, [(HRS_MEASUREMENT, ["notify"])])
        self.pending = [
            Device(bus, self, 1, "Kardia-ECG", [(KARDIA_SERVICE, [(KARDIA_DATA, ["notify"])])],
                   KardiaPlayer(args.speed, read_mitdb_mlii(args.mitdb, 60), args.loop)),
            Device(bus, self, 2, "Polar H10 8AA87D20",
                   [hrs, (PMD_SERVICE, [(PMD_CONTROL, ["write", "indicate", "read"]), (PMD_DATA, ["notify"])])],
                   PolarPlayer(args.speed, read_polar_csv(args.polar_csv))),
            Device(bus, self, 3, "HRM-Strap", [hrs], StrapPlayer(args.speed, read_beats(args.af_beats), 250.0)),
        ]
        # the H10 serves Heart Rate Measurements too (--ble-profile hrs): the strap's RR list
        polar_hrs = StrapPlayer(args.speed, read_beats(args.af_beats), 250.0)
        polar_hrs.device = self.pending[1]
        self.pending[1].extras[HRS_MEASUREMENT] = polar_hrs
        if args.stream_seconds is not None:
            for device in self.pending:
                device.player.limit = int(args.stream_seconds * device.player.rate)

    def add(self, obj):
        self.objects[obj.path] = obj
        self.root.InterfacesAdded(obj.path, obj.interfaces)


    def advertise(self):
        for device in self.pending:
            self.add(device)
        self.pending = []
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bus", required=True, help="the private bus's address")
    parser.add_argument("--mitdb", required=True, help="MIT-BIH 100's .dat (format 212)")
    parser.add_argument("--polar-csv", required=True, help="time_s,ecg_uv rows of a Polar H10")
    parser.add_argument("--af-beats", required=True, help="beat samples at 250 Hz, one per line")
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--drop-link-after", type=float)
    parser.add_argument("--unreachable-for", type=float, default=0.0,
                        help="after the drop, Connect fails (after up to 4 s, as BlueZ's does) for this long")
    parser.add_argument("--loop", action="store_true", help="the board plays record 100's minute over and over")
    parser.add_argument("--stream-seconds", type=float, help="each stream ends after this much data (whole notifications)")
    parser.add_argument("--powered-off", action="store_true")
    parser.add_argument("--no-adapter", action="store_true")
    parser.add_argument("--needs-pairing", action="store_true", help="notifications only for a paired device")
    parser.add_argument("--ready-file", help="written once org.bluez is owned")
    args = parser.parse_args()

    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(args.bus)
    name = dbus.service.BusName(BLUEZ, bus, do_not_queue=True)
    standin = StandIn(bus, args)
    loop = GLib.MainLoop()
    for number in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, number, loop.quit)
    if args.ready_file:
        with open(args.ready_file, "w") as ready:
            ready.write("ready\n")
    loop.run()
    # the bus may be gone already: leave without releasing the name
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
