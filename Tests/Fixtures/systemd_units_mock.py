"""python-dbusmock template: the part of systemd's manager that lulld's run units use, for
SystemdServiceManager's tests. Units are added by the test at systemd's own object paths; the
manager's GetUnit can be told to fail a number of times (a busy manager: the call times out),
and the calls of StopUnit and of each unit's Ref are counted.
"""
import dbus

from dbusmock import MOCK_IFACE

BUS_NAME = 'org.freedesktop.systemd1'
MAIN_OBJ = '/org/freedesktop/systemd1'
MAIN_IFACE = 'org.freedesktop.systemd1.Manager'
UNIT_IFACE = 'org.freedesktop.systemd1.Unit'
SERVICE_IFACE = 'org.freedesktop.systemd1.Service'
SYSTEM_BUS = True


def load(mock, _parameters):
    mock.units = {}
    mock.get_unit_failures = 0
    mock.counts = {}


def count(mock, what):
    mock.counts[what] = mock.counts.get(what, 0) + 1


@dbus.service.method(MAIN_IFACE, in_signature='', out_signature='')
def Subscribe(self):
    pass


@dbus.service.method(MAIN_IFACE, in_signature='s', out_signature='o')
def GetUnit(self, name):
    if self.get_unit_failures > 0:
        self.get_unit_failures -= 1
        raise dbus.exceptions.DBusException('Connection timed out', name='org.freedesktop.DBus.Error.NoReply')
    if str(name) not in self.units:
        raise dbus.exceptions.DBusException(f'Unit {name} not loaded.', name='org.freedesktop.systemd1.NoSuchUnit')
    return self.units[str(name)]


@dbus.service.method(MAIN_IFACE, in_signature='s', out_signature='o')
def LoadUnit(self, name):
    return self.units[str(name)]


@dbus.service.method(MAIN_IFACE, in_signature='ss', out_signature='o')
def StartUnit(self, name, _mode):
    count(self, f'StartUnit {name}')
    return '/org/freedesktop/systemd1/job/1'


@dbus.service.method(MAIN_IFACE, in_signature='ss', out_signature='o')
def StopUnit(self, name, _mode):
    count(self, f'StopUnit {name}')
    return '/org/freedesktop/systemd1/job/1'


@dbus.service.method(MOCK_IFACE, in_signature='so')
def AddUnit(self, name, path):
    """A running unit at `path` whose Ref and Unref are counted."""
    self.units[str(name)] = path
    self.AddObject(path, UNIT_IFACE,
                   {'Id': name, 'LoadState': 'loaded', 'ActiveState': 'active', 'SubState': 'running',
                    'Job': dbus.Struct((dbus.UInt32(0), dbus.ObjectPath('/')), signature='uo')},
                   [('Ref', '', '', ''), ('Unref', '', '', '')])
    unit = dbusmock_object(path)
    unit.AddProperties(SERVICE_IFACE, {'Result': 'success', 'ExecMainCode': dbus.Int32(0),
                                       'ExecMainStatus': dbus.Int32(0)})


@dbus.service.method(MOCK_IFACE, in_signature='i')
def FailGetUnit(self, times):
    self.get_unit_failures = int(times)


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='i')
def GetUnitFailuresLeft(self):
    return self.get_unit_failures


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='i')
def Count(self, what):
    return self.counts.get(str(what), 0)


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='i')
def RefCount(self, name):
    return len(dbusmock_object(self.units[str(name)]).GetMethodCalls('Ref'))


@dbus.service.method(MOCK_IFACE, in_signature='si')
def ExitUnit(self, name, status):
    """The unit's command exited with `status`: the unit goes inactive."""
    unit = dbusmock_object(self.units[str(name)])
    unit.UpdateProperties(SERVICE_IFACE, {'ExecMainCode': dbus.Int32(1), 'ExecMainStatus': dbus.Int32(status)})
    unit.UpdateProperties(UNIT_IFACE, {'ActiveState': 'inactive', 'SubState': 'dead'})


def dbusmock_object(path):
    from dbusmock import mockobject
    return mockobject.objects[path]
