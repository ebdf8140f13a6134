"""τ²-bench's retail tools as HoloDeck function tools, one function a tool
(written by `holodeck-lsp import tau2`; regenerate rather than edit). Each call runs on
the current test case's own environment (tau2_state.py says how a call finds it) and
returns what τ² returns to its agent: the result as JSON text, or `Error: ...`."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any


def _load_state() -> Any:
    """tau2_state.py as a module private to this folder (shared with tau2_grader.py)."""
    path = Path(__file__).resolve().with_name("tau2_state.py")
    unique = f"_tau2_state_{abs(hash(path.parent)):x}"
    if unique not in sys.modules:
        spec = importlib.util.spec_from_file_location(unique, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[unique] = module
        spec.loader.exec_module(module)
    return sys.modules[unique]


_call = _load_state().call


def calculate(expression: str) -> str:
    """Calculate the result of a mathematical expression."""
    return _call("retail", "calculate", dict(locals()))


def cancel_pending_order(order_id: str, reason: str) -> str:
    """Cancel a pending order. If the order is already processed or delivered,

    it cannot be cancelled. The agent needs to explain the cancellation detail
    and ask for explicit user confirmation (yes/no) to proceed. If the user confirms,
    the order status will be changed to 'cancelled' and the payment will be refunded.
    The refund will be added to the user's gift card balance immediately if the payment
    was made using a gift card, otherwise the refund would take 5-7 business days to process.
    The function returns the order details after the cancellation."""
    return _call("retail", "cancel_pending_order", dict(locals()))


def exchange_delivered_order_items(
    order_id: str,
    item_ids: list[Any],
    new_item_ids: list[Any],
    payment_method_id: str,
) -> str:
    """Exchange items in a delivered order to new items of the same product type.

    For a delivered order, return or exchange can be only done once by the agent.
    The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed."""
    return _call("retail", "exchange_delivered_order_items", dict(locals()))


def find_user_id_by_name_zip(first_name: str, last_name: str, zip: str) -> str:
    """Find user id by first name, last name, and zip code. If the user is not found, the function

    will return an error message. By default, find user id by email, and only call this function
    if the user is not found by email or cannot remember email."""
    return _call("retail", "find_user_id_by_name_zip", dict(locals()))


def find_user_id_by_email(email: str) -> str:
    """Find user id by email. If the user is not found, the function will return an error message."""
    return _call("retail", "find_user_id_by_email", dict(locals()))


def get_order_details(order_id: str) -> str:
    """Get the status and details of an order."""
    return _call("retail", "get_order_details", dict(locals()))


def get_product_details(product_id: str) -> str:
    """Get the inventory details of a product."""
    return _call("retail", "get_product_details", dict(locals()))


def get_item_details(item_id: str) -> str:
    """Get the inventory details of an item."""
    return _call("retail", "get_item_details", dict(locals()))


def get_user_details(user_id: str) -> str:
    """Get the details of a user, including their orders."""
    return _call("retail", "get_user_details", dict(locals()))


def list_all_product_types() -> str:
    """List the name and product id of all product types.

    Each product type has a variety of different items with unique item ids and options.
    There are only 50 product types in the store."""
    return _call("retail", "list_all_product_types", dict(locals()))


def modify_pending_order_address(
    order_id: str,
    address1: str,
    address2: str,
    city: str,
    state: str,
    country: str,
    zip: str,
) -> str:
    """Modify the shipping address of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed."""
    return _call("retail", "modify_pending_order_address", dict(locals()))


def modify_pending_order_items(
    order_id: str,
    item_ids: list[Any],
    new_item_ids: list[Any],
    payment_method_id: str,
) -> str:
    """Modify items in a pending order to new items of the same product type. For a pending order, this function can only be called once. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed."""
    return _call("retail", "modify_pending_order_items", dict(locals()))


def modify_pending_order_payment(order_id: str, payment_method_id: str) -> str:
    """Modify the payment method of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed."""
    return _call("retail", "modify_pending_order_payment", dict(locals()))


def modify_user_address(
    user_id: str,
    address1: str,
    address2: str,
    city: str,
    state: str,
    country: str,
    zip: str,
) -> str:
    """Modify the default address of a user. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed."""
    return _call("retail", "modify_user_address", dict(locals()))


def return_delivered_order_items(order_id: str, item_ids: list[Any], payment_method_id: str) -> str:
    """Return some items of a delivered order.

    The order status will be changed to 'return requested'.
    The agent needs to explain the return detail and ask for explicit user confirmation (yes/no) to proceed.
    The user will receive follow-up email for how and where to return the item."""
    return _call("retail", "return_delivered_order_items", dict(locals()))


def transfer_to_human_agents(summary: str) -> str:
    """Transfer the user to a human agent, with a summary of the user's issue.

    Only transfer if
     -  the user explicitly asks for a human agent
     -  given the policy and the available tools, you cannot solve the user's issue."""
    return _call("retail", "transfer_to_human_agents", dict(locals()))
