"""The drivers' one error root: a device that sent garbage is kept apart from a call we made wrongly."""


class DeviceError(Exception):
    """Root of every error the drivers raise."""


class FrameError(DeviceError, ValueError):
    """The device sent bytes that are not a valid frame or message (garbage on the wire)."""


class UnsupportedDevice(DeviceError, RuntimeError):
    """The device said who it is and we do not support it (model, protocol or firmware version)."""


class DeviceNotResponding(DeviceError, TimeoutError):
    """The device did not answer in time."""


class BackendError(DeviceError, ValueError):
    """A device was asked for with a backend name or option that does not exist."""
