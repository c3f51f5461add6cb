"""The prompts, resources and completions of the `units` example, through the official MCP
Python SDK's session: shared by stdio_client.py and http_client.py, whose reports carry what
this returns under "catalog" for the Rust tests to compare exactly."""

from mcp import MCPError, types


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def answer(request):
    """The result of a request, or the JSON-RPC error it was answered with (the SDK raises it)."""
    try:
        return {"result": dump(await request)}
    except MCPError as error:
        return {"code": error.code, "message": error.message, "data": error.data}


async def catalog_report(session):
    report = {}
    report["prompts"] = dump(await session.list_prompts())
    report["prompt"] = dump(
        await session.get_prompt(
            "explain_conversion", {"value": "100", "from": "celsius", "to": "kelvin"}
        )
    )
    report["prompt_bad_arguments"] = await answer(
        session.get_prompt("explain_conversion", {"value": "hot"})
    )
    report["resources"] = dump(await session.list_resources())
    report["templates"] = dump(await session.list_resource_templates())
    report["formulas"] = dump(await session.read_resource("units://formulas"))
    report["celsius"] = dump(await session.read_resource("units://celsius/37"))
    report["below_zero"] = await answer(session.read_resource("units://celsius/-300"))
    report["unknown_resource"] = await answer(session.read_resource("units://nothing"))
    prompt = types.PromptReference(type="ref/prompt", name="explain_conversion")
    report["complete_audience"] = dump(
        await session.complete(prompt, {"name": "audience", "value": "a c"})
    )
    report["complete_scale"] = dump(await session.complete(prompt, {"name": "from", "value": "k"}))
    template = types.ResourceTemplateReference(type="ref/resource", uri="units://celsius/{value}")
    report["complete_value"] = dump(
        await session.complete(template, {"name": "value", "value": "1"})
    )
    return report
